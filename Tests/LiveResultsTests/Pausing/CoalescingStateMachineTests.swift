import Foundation
@testable import LiveResults
import Testing

/// Coalescing's transitions, one test each (or a few, for a transition from several states), on the value
/// alone, with instants chosen by the test: what is delivered, when a wake-up is scheduled, and what an
/// interval changed meanwhile does to it.
@Suite("Coalescing state machine")
struct CoalescingStateMachineTests {
    typealias Coalescing = _Coalescing<Item>
    typealias Instant = _ControllerClock.Instant

    static func at(_ milliseconds: Int) -> Instant { Instant(offset: .milliseconds(milliseconds)) }

    /// Three items, then the versions the tests move between.
    struct Versions {
        var core = _ResultsCore<Item>(
            ordering: _EntityOrdering(
                sectionNameKeyPath: nil, sectionOrder: .ascending,
                rule: _EntityOrdering.rule(of: [SortDescriptor(\Item.score)])),
            isIncluded: { _ in true })

        init() {
            _ = core.replaceAll(with: (1...3).map { Item($0, score: $0) })
        }

        var storage: _SectionedStorage<Item> { core.storage }

        /// Deletes `id`, returning the change set.
        mutating func delete(_ id: Int) -> ChangeSet<Item> { core.apply([.deleted(id)]).changes }
    }

    /// The change set of a delivery, or `nil` for another action.
    static func delivered(_ action: Coalescing.Action) -> (changes: ChangeSet<Item>, rebuilt: Bool)? {
        guard case .deliver(let changes, let rebuilt) = action else { return nil }
        return (changes, rebuilt)
    }

    static func wakeUp(_ action: Coalescing.Action) -> Instant? {
        guard case .wakeUp(let instant) = action else { return nil }
        return instant
    }

    static func isNothing(_ action: Coalescing.Action) -> Bool {
        if case .nothing = action { true } else { false }
    }

    /// The window, or `nil` while off.
    static func window(_ coalescing: Coalescing) -> Coalescing.Window? {
        switch coalescing.state {
        case .off: nil
        case .holding(let window), .scheduled(let window, _): window
        }
    }

    static func scheduledWakeUp(_ coalescing: Coalescing) -> Instant? {
        guard case .scheduled(_, let wakeUp) = coalescing.state else { return nil }
        return wakeUp
    }

    static func lastDeliveryWhileOff(_ coalescing: Coalescing) -> Instant?? {
        guard case .off(let lastDelivery) = coalescing.state else { return nil }
        return .some(lastDelivery)
    }

    /// Coalescing at 100 ms from `versions`, holding the deletion of 1, never delivered yet.
    static func holdingADeletion(_ versions: inout Versions) -> Coalescing {
        var coalescing = Coalescing()
        _ = coalescing.setInterval(.milliseconds(100), at: at(0), observed: versions.storage, current: versions.storage)
        coalescing.hold(versions.delete(1), .events)
        return coalescing
    }

    // MARK: setInterval

    @Test func settingAnIntervalStartsHoldingFromTheObservedVersion() {
        var versions = Versions()
        let observed = versions.storage
        _ = versions.delete(1)
        var coalescing = Coalescing()
        let action = coalescing.setInterval(
            .milliseconds(50), at: Self.at(0), observed: observed, current: versions.storage)
        #expect(Self.isNothing(action))
        #expect(coalescing.isOn && coalescing.interval == .milliseconds(50))
        #expect(coalescing.held?.base.count == 3, "held from the version the observers have (a pause's)")
        #expect(coalescing.held?.isEmpty == true)
    }

    @Test(arguments: [Duration.zero, .milliseconds(-5)])
    func zeroOrLessWhileOffStaysOff(interval: Duration) {
        let versions = Versions()
        var coalescing = Coalescing()
        #expect(
            Self.isNothing(
                coalescing.setInterval(interval, at: Self.at(0), observed: versions.storage, current: versions.storage))
        )
        #expect(!coalescing.isOn && coalescing.interval == .zero)
    }

    @Test func anIntervalSetAgainCountsFromTheLastDelivery() {
        var versions = Versions()
        var coalescing = Self.holdingADeletion(&versions)
        _ = coalescing.release(at: Self.at(10), to: versions.storage)
        _ = coalescing.setInterval(.zero, at: Self.at(20), observed: versions.storage, current: versions.storage)
        #expect(Self.lastDeliveryWhileOff(coalescing) == .some(Self.at(10)), "nothing held: no delivery at 20")
        _ = coalescing.setInterval(
            .milliseconds(100), at: Self.at(30), observed: versions.storage, current: versions.storage)
        coalescing.hold(versions.delete(2), .events)
        #expect(Self.wakeUp(coalescing.release(at: Self.at(40), to: versions.storage)) == Self.at(110))
    }

    @Test func changingTheIntervalWhileHoldingKeepsWhatIsHeld() {
        var versions = Versions()
        var coalescing = Self.holdingADeletion(&versions)
        let action = coalescing.setInterval(
            .milliseconds(30), at: Self.at(5), observed: versions.storage, current: versions.storage)
        #expect(Self.isNothing(action))
        #expect(coalescing.interval == .milliseconds(30) && coalescing.held?.isEmpty == false)
    }

    @Test func changingTheIntervalForgetsTheScheduledWakeUp() {
        var versions = Versions()
        var coalescing = Self.holdingADeletion(&versions)
        _ = coalescing.release(at: Self.at(0), to: versions.storage)
        coalescing.hold(versions.delete(2), .events)
        #expect(Self.wakeUp(coalescing.release(at: Self.at(10), to: versions.storage)) == Self.at(100))
        _ = coalescing.setInterval(
            .milliseconds(20), at: Self.at(15), observed: versions.storage, current: versions.storage)
        #expect(Self.scheduledWakeUp(coalescing) == nil, "the old wake-up may come too late for the new interval")
        #expect(
            Self.wakeUp(coalescing.release(at: Self.at(15), to: versions.storage)) == Self.at(20),
            "the next change schedules the new interval's end")
    }

    @Test func zeroWhileHoldingDeliversEverythingHeldAndTurnsOff() {
        var versions = Versions()
        var coalescing = Self.holdingADeletion(&versions)
        coalescing.hold(versions.delete(2), .rebuild)
        let delivered = Self.delivered(
            coalescing.setInterval(.zero, at: Self.at(7), observed: versions.storage, current: versions.storage))
        #expect(delivered?.changes.deletedItemIDs == [1, 2])
        #expect(delivered?.rebuilt == true)
        #expect(Self.lastDeliveryWhileOff(coalescing) == .some(Self.at(7)))
        #expect(coalescing.held == nil)
    }

    @Test func zeroWhileScheduledTurnsOffWithoutAWakeUp() {
        var versions = Versions()
        var coalescing = Self.holdingADeletion(&versions)
        _ = coalescing.release(at: Self.at(0), to: versions.storage)
        coalescing.hold(versions.delete(2), .events)
        _ = coalescing.release(at: Self.at(10), to: versions.storage)
        let delivered = Self.delivered(
            coalescing.setInterval(.zero, at: Self.at(20), observed: versions.storage, current: versions.storage))
        #expect(delivered?.changes.deletedItemIDs == [2])
        #expect(!coalescing.isOn)
    }

    // MARK: hold

    @Test func holdingRecordsTheKindOfChange() {
        var versions = Versions()
        var coalescing = Self.holdingADeletion(&versions)
        #expect(coalescing.held?.isEmpty == false && coalescing.held?.isRebuilt == false)
        coalescing.hold(versions.delete(2), .rebuild)
        #expect(coalescing.held?.isRebuilt == true)
    }

    @Test func holdingWhileScheduledKeepsTheWakeUp() {
        var versions = Versions()
        var coalescing = Self.holdingADeletion(&versions)
        _ = coalescing.release(at: Self.at(0), to: versions.storage)
        coalescing.hold(versions.delete(2), .events)
        _ = coalescing.release(at: Self.at(10), to: versions.storage)
        coalescing.hold(versions.delete(3), .events)
        #expect(Self.scheduledWakeUp(coalescing) == Self.at(100))
        #expect(
            Self.delivered(coalescing.flush(at: Self.at(20), to: versions.storage))?.changes.deletedItemIDs == [2, 3])
    }

    @Test func holdingWhileOffIsIgnored() {
        var versions = Versions()
        var coalescing = Coalescing()
        coalescing.hold(versions.delete(1), .events)
        #expect(!coalescing.isOn && coalescing.held == nil)
    }

    // MARK: release

    @Test func aFirstChangeIsDeliveredAtOnce() {
        var versions = Versions()
        var coalescing = Self.holdingADeletion(&versions)
        let delivered = Self.delivered(coalescing.release(at: Self.at(3), to: versions.storage))
        #expect(delivered?.changes.deletedItemIDs == [1])
        #expect(delivered?.rebuilt == false)
        #expect(Self.window(coalescing)?.lastDelivery == Self.at(3))
        #expect(coalescing.held?.isEmpty == true && coalescing.held?.base.count == 2, "held from what was delivered")
        #expect(Self.scheduledWakeUp(coalescing) == nil)
    }

    @Test func aChangeWithinTheIntervalSchedulesAWakeUpAtItsEnd() {
        var versions = Versions()
        var coalescing = Self.holdingADeletion(&versions)
        _ = coalescing.release(at: Self.at(3), to: versions.storage)
        coalescing.hold(versions.delete(2), .events)
        #expect(Self.wakeUp(coalescing.release(at: Self.at(40), to: versions.storage)) == Self.at(103))
        #expect(Self.scheduledWakeUp(coalescing) == Self.at(103))
        #expect(coalescing.held?.isEmpty == false, "held until then")
    }

    @Test func aFurtherChangeWhileAWakeUpIsScheduledDoesNothing() {
        var versions = Versions()
        var coalescing = Self.holdingADeletion(&versions)
        _ = coalescing.release(at: Self.at(3), to: versions.storage)
        coalescing.hold(versions.delete(2), .events)
        _ = coalescing.release(at: Self.at(40), to: versions.storage)
        coalescing.hold(versions.delete(3), .events)
        #expect(Self.isNothing(coalescing.release(at: Self.at(60), to: versions.storage)), "one task waits already")
    }

    @Test func aChangeAfterTheIntervalIsDeliveredAtOnceEvenWhileAWakeUpIsScheduled() {
        var versions = Versions()
        var coalescing = Self.holdingADeletion(&versions)
        _ = coalescing.release(at: Self.at(3), to: versions.storage)
        coalescing.hold(versions.delete(2), .events)
        _ = coalescing.release(at: Self.at(40), to: versions.storage)
        let delivered = Self.delivered(coalescing.release(at: Self.at(103), to: versions.storage))
        #expect(delivered?.changes.deletedItemIDs == [2])
        #expect(Self.scheduledWakeUp(coalescing) == Self.at(103), "the task still wakes, and finds nothing")
    }

    @Test func nothingHeldReleasesNothing() {
        let versions = Versions()
        var coalescing = Coalescing()
        #expect(Self.isNothing(coalescing.release(at: Self.at(0), to: versions.storage)), "off")
        _ = coalescing.setInterval(
            .milliseconds(10), at: Self.at(0), observed: versions.storage, current: versions.storage)
        #expect(Self.isNothing(coalescing.release(at: Self.at(0), to: versions.storage)), "on, nothing held")
    }

    // MARK: wokeUp

    @Test func theScheduledWakeUpMakesRoomForTheNext() {
        var versions = Versions()
        var coalescing = Self.holdingADeletion(&versions)
        _ = coalescing.release(at: Self.at(3), to: versions.storage)
        coalescing.hold(versions.delete(2), .events)
        _ = coalescing.release(at: Self.at(40), to: versions.storage)
        coalescing.wokeUp(at: Self.at(103))
        #expect(Self.scheduledWakeUp(coalescing) == nil)
        #expect(
            Self.delivered(coalescing.release(at: Self.at(103), to: versions.storage))?.changes.deletedItemIDs == [2])
    }

    @Test func aWakeUpOfAnEarlierScheduleChangesNothing() {
        var versions = Versions()
        var coalescing = Self.holdingADeletion(&versions)
        _ = coalescing.release(at: Self.at(3), to: versions.storage)
        coalescing.hold(versions.delete(2), .events)
        #expect(Self.wakeUp(coalescing.release(at: Self.at(40), to: versions.storage)) == Self.at(103))
        _ = coalescing.setInterval(
            .milliseconds(10), at: Self.at(41), observed: versions.storage, current: versions.storage)
        #expect(Self.delivered(coalescing.release(at: Self.at(42), to: versions.storage)) != nil)
        coalescing.hold(versions.delete(3), .events)
        #expect(Self.wakeUp(coalescing.release(at: Self.at(45), to: versions.storage)) == Self.at(52))
        coalescing.wokeUp(at: Self.at(103))
        #expect(Self.scheduledWakeUp(coalescing) == Self.at(52), "the task of the 100 ms interval woke late")
    }

    // MARK: flush

    @Test func flushingDeliversWhatIsHeldWithinTheInterval() {
        var versions = Versions()
        var coalescing = Self.holdingADeletion(&versions)
        _ = coalescing.release(at: Self.at(3), to: versions.storage)
        coalescing.hold(versions.delete(2), .values)
        let delivered = Self.delivered(coalescing.flush(at: Self.at(10), to: versions.storage))
        #expect(delivered?.changes.deletedItemIDs == [2])
        #expect(Self.window(coalescing)?.lastDelivery == Self.at(10))
        #expect(Self.isNothing(coalescing.flush(at: Self.at(11), to: versions.storage)), "nothing left")
    }

    @Test func flushingWhileOffDoesNothing() {
        let versions = Versions()
        var coalescing = Coalescing()
        #expect(Self.isNothing(coalescing.flush(at: Self.at(0), to: versions.storage)))
    }

    // MARK: resumed

    @Test func aResumeRestartsTheHeldChangesAndTheInterval() {
        var versions = Versions()
        var coalescing = Self.holdingADeletion(&versions)
        _ = coalescing.flush(at: Self.at(1), to: versions.storage)
        _ = versions.delete(2)
        coalescing.resumed(at: Self.at(50), to: versions.storage)
        #expect(coalescing.held?.base.count == 1 && coalescing.held?.isEmpty == true)
        #expect(Self.window(coalescing)?.lastDelivery == Self.at(50))
    }

    @Test func aResumeWhileOffDoesNothing() {
        let versions = Versions()
        var coalescing = Coalescing()
        coalescing.resumed(at: Self.at(50), to: versions.storage)
        #expect(Self.lastDeliveryWhileOff(coalescing) == .some(nil))
    }

    // MARK: A burst

    /// A burst within one interval: the first change goes at once, the rest wait for one wake-up, which
    /// delivers them as one change set.
    @Test func aBurstIsOneDeliveryAtTheEndOfTheInterval() {
        var versions = Versions()
        var coalescing = Self.holdingADeletion(&versions)
        #expect(Self.delivered(coalescing.release(at: Self.at(0), to: versions.storage)) != nil)
        coalescing.hold(versions.delete(2), .events)
        #expect(Self.wakeUp(coalescing.release(at: Self.at(10), to: versions.storage)) == Self.at(100))
        coalescing.hold(versions.delete(3), .events)
        #expect(Self.isNothing(coalescing.release(at: Self.at(20), to: versions.storage)))
        coalescing.wokeUp(at: Self.at(100))
        let delivered = Self.delivered(coalescing.release(at: Self.at(100), to: versions.storage))
        #expect(delivered?.changes.deletedItemIDs == [2, 3])
    }
}
