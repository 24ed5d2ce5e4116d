import Testing

@testable import LiveResultsPostgres

/// The sweep of abandoned temporary slots, one transition at a time, with no database: when a look is due, which
/// slots a look's findings drop, and what a reconnection forgets. Times are on the feed's clock, in seconds.
@Suite("PostgresChangeFeed: the state machine of the sweep of abandoned slots")
struct SlotSweepStateMachineTests {
    let timing = _SlotSweep.Timing(interval: .seconds(5), grace: .seconds(15))

    func unowned(_ slot: String, at position: String = "0/1") -> _SlotSweep.Unowned {
        _SlotSweep.Unowned(slot: slot, position: position)
    }

    /// A sweep that looked at `now` and found `found`, now waiting for its next look.
    func sweep(found: [_SlotSweep.Unowned] = [], at now: Duration = .zero) -> _SlotSweep {
        var sweep = _SlotSweep(timing: timing, now: now)
        #expect(sweep.step(now: now) == .look)
        #expect(sweep.found(found, now: now) == [])
        return sweep
    }

    @Test("A new sweep's first look is due at once")
    func firstLookAtOnce() {
        var sweep = _SlotSweep(timing: timing, now: .seconds(3))
        #expect(sweep.state == .waiting(due: .seconds(3), unowned: [:]))
        #expect(sweep.step(now: .seconds(3)) == .look)
        #expect(sweep.state == .looking(due: .seconds(3), unowned: [:]))
    }

    @Test("step: nothing before the look is due, a look once it is, nothing more while it is made")
    func step() {
        var sweep = sweep()
        #expect(sweep.state == .waiting(due: .seconds(5), unowned: [:]))
        #expect(sweep.step(now: .milliseconds(4_999)) == .none)
        #expect(sweep.step(now: .seconds(6)) == .look)
        #expect(sweep.step(now: .seconds(7)) == .none)
        #expect(sweep.state == .looking(due: .seconds(5), unowned: [:]))
    }

    @Test("found: a slot first found unowned is sighted, not dropped, and the next look is an interval later")
    func firstSighting() {
        let sweep = sweep(found: [unowned("a")], at: .seconds(2))
        #expect(sweep.state == .waiting(due: .seconds(7), unowned: ["a": .init(position: "0/1", since: .seconds(2))]))
    }

    @Test("found: a slot found unowned again within the grace is kept from its first sighting")
    func withinGrace() {
        var sweep = sweep(found: [unowned("a")])
        for now in [Duration.seconds(5), .milliseconds(14_999)] {
            #expect(sweep.step(now: now) == .look)
            #expect(sweep.found([unowned("a")], now: now) == [])
        }
        #expect(sweep.state == .waiting(due: .seconds(15), unowned: ["a": .init(position: "0/1", since: .zero)]))
    }

    @Test("found: a slot found unowned at every look for the grace, at the same position, is dropped and forgotten")
    func pastGrace() {
        var sweep = sweep(found: [unowned("a"), unowned("b")])
        #expect(sweep.step(now: .seconds(5)) == .look)
        #expect(sweep.found([unowned("a"), unowned("b"), unowned("c")], now: .seconds(5)) == [])
        #expect(sweep.step(now: .seconds(16)) == .look)
        let drops = sweep.found([unowned("a"), unowned("b"), unowned("c")], now: .seconds(16))
        #expect(Set(drops.map(\.slot.slot)) == ["a", "b"])
        // The look was due at 10 and ran at 16: it is dated a second before it ran.
        #expect(drops.allSatisfy { $0.unownedFor == .seconds(15) })
        #expect(sweep.state == .waiting(due: .seconds(21), unowned: ["c": .init(position: "0/1", since: .seconds(5))]))
    }

    @Test("found: a look is dated when it was due, at most a second before it ran; the next is due an interval later")
    func dating() {
        var sweep = sweep(found: [unowned("a")])
        // Due at 5, run at 5.6 (the reading task's step came then): dated 5, the next due at 10.
        #expect(sweep.step(now: .milliseconds(5_600)) == .look)
        #expect(sweep.found([unowned("a"), unowned("b")], now: .milliseconds(5_600)) == [])
        #expect(
            sweep.state
                == .waiting(
                    due: .seconds(10),
                    unowned: [
                        "a": .init(position: "0/1", since: .zero), "b": .init(position: "0/1", since: .seconds(5)),
                    ]))
        // Due at 10, run at 13 (after a long read): dated 12; the next still due at 15.
        #expect(sweep.step(now: .seconds(13)) == .look)
        #expect(sweep.found([unowned("c")], now: .seconds(13)) == [])
        #expect(sweep.state == .waiting(due: .seconds(15), unowned: ["c": .init(position: "0/1", since: .seconds(12))]))
        // Due at 15, run at 21: dated 20, and the next due 5 s after it ran.
        #expect(sweep.step(now: .seconds(21)) == .look)
        #expect(sweep.found([], now: .seconds(21)) == [])
        #expect(sweep.state == .waiting(due: .seconds(26), unowned: [:]))
        // Each look run half a second late: a slot sighted at the look due at 0 is dropped at the look due at 15.
        var other = self.sweep(found: [unowned("a")])
        for due in [5, 10, 15] {
            #expect(other.step(now: .milliseconds(due * 1_000 + 500)) == .look)
            let drops = other.found([unowned("a")], now: .milliseconds(due * 1_000 + 500))
            #expect(drops.map(\.unownedFor) == (due == 15 ? [.seconds(15)] : []))
        }
    }

    @Test("found: a slot whose position moved was read meanwhile: its sighting starts again")
    func positionMoved() {
        var sweep = sweep(found: [unowned("a", at: "0/1")])
        #expect(sweep.step(now: .seconds(20)) == .look)
        #expect(sweep.found([unowned("a", at: "0/2")], now: .seconds(20)) == [])
        #expect(sweep.state == .waiting(due: .seconds(25), unowned: ["a": .init(position: "0/2", since: .seconds(19))]))
    }

    @Test("found: a slot a look did not find (its owner is back, or it is gone) is forgotten, and sighted anew later")
    func ownerBack() {
        var sweep = sweep(found: [unowned("a")])
        #expect(sweep.step(now: .seconds(10)) == .look)
        #expect(sweep.found([], now: .seconds(10)) == [])
        #expect(sweep.state == .waiting(due: .seconds(15), unowned: [:]))
        #expect(sweep.step(now: .seconds(15)) == .look)
        #expect(sweep.found([unowned("a")], now: .seconds(15)) == [])
        #expect(sweep.step(now: .seconds(20)) == .look)
        #expect(
            sweep.found([unowned("a")], now: .seconds(20)) == [], "15 s after the first sighting, not after the new one"
        )
    }

    @Test("found: findings that arrive when no look is being made change nothing")
    func foundWithoutLook() {
        var sweep = sweep(found: [unowned("a")])
        let before = sweep
        #expect(sweep.found([unowned("a")], now: .seconds(100)) == [])
        #expect(sweep == before)
    }

    @Test(
        "reconnected: the sightings are forgotten (the owner may have come back meanwhile), and a look is due at once")
    func reconnected() {
        var sweep = sweep(found: [unowned("a")])
        #expect(sweep.step(now: .seconds(5)) == .look)
        sweep.reconnected(now: .seconds(14))
        #expect(sweep.state == .waiting(due: .seconds(14), unowned: [:]))
        #expect(sweep.step(now: .seconds(14)) == .look)
        #expect(sweep.found([unowned("a")], now: .seconds(16)) == [], "sighted anew, though first seen 16 s ago")
    }

    @Test("The timing: a look every 5 s; a grace of 15 s, or the longest reconnection wait plus 5 s")
    func defaultTiming() {
        #expect(
            _SlotSweep.Timing.forFeed(maximumReconnectDelay: .seconds(10))
                == .init(interval: .seconds(5), grace: .seconds(15)))
        #expect(
            _SlotSweep.Timing.forFeed(maximumReconnectDelay: .seconds(60))
                == .init(interval: .seconds(5), grace: .seconds(65)))
    }
}
