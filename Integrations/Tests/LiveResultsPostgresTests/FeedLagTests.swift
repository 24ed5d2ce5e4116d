import Testing

@testable import LiveResultsPostgres

/// The feed's lag as a value: the bytes behind the server's last position, and the age of the oldest position
/// learned and not applied, measured on the continuous clock.
@Suite("The change feed's lag")
struct FeedLagTests {
    @Test("bytes behind the server's last position; seconds since the oldest position not applied was learned")
    func lag() {
        let start = ContinuousClock.now
        var lag = _FeedLag()
        #expect(lag.bytes == 0 && lag.seconds(at: start) == 0)
        lag.learned(100, now: start)
        lag.applied(50)
        #expect(lag.bytes == 50)
        #expect(lag.seconds(at: start + .seconds(2)) == 2)
        lag.learned(200, now: start + .seconds(3))
        // A position learned again, or an older one, changes nothing.
        lag.learned(150, now: start + .seconds(4))
        lag.applied(120)
        #expect(lag.bytes == 80)
        #expect(lag.seconds(at: start + .seconds(4)) == 1)
        lag.applied(200)
        #expect(lag.bytes == 0 && lag.seconds(at: start + .seconds(9)) == 0)
        // Learned at or below what was applied: nothing pending.
        lag.learned(200, now: start + .seconds(9))
        #expect(lag.pending.isEmpty)
    }

    @Test("at most 64 positions are kept: the newest takes the last one's place and its time")
    func bounded() {
        let start = ContinuousClock.now
        var lag = _FeedLag()
        for step in 1...100 { lag.learned(UInt64(step) * 10, now: start + .seconds(step)) }
        #expect(lag.pending.count == _FeedLag.maximumPending)
        #expect(lag.pending.last?.position == 1_000)
        #expect(lag.pending.last?.learned == start + .seconds(64))
        lag.applied(640)
        #expect(lag.bytes == 360)
        #expect(lag.seconds(at: start + .seconds(100)) == 36)
    }
}
