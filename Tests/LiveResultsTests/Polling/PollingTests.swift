import Foundation
@testable import LiveResults
import Testing

/// Polling (the *LifeOfAQuery* article): refetches on a period until cancelled, skipping ticks while a fetch runs.
/// The controllers tick on a ``ManualClock``: a test moves the time, and sees each tick that could happen.
@Suite("Polling", .timeLimit(.minutes(5)), .tags(.concurrent))
struct PollingTests {
    /// A controller over `store` that ticks on `clock`.
    private static func controller(_ store: FakeStore, on clock: ManualClock) -> FetchedResultsController<Item> {
        let controller = FetchedResultsController.make(store)
        controller._clock = clock.controllerClock
        return controller
    }

    /// Waits until the poller sleeps for its next tick, having begun `sleeps` sleeps in all.
    private static func sleepsFor(_ sleeps: Int, on clock: ManualClock) async -> Bool {
        await EventHarness.eventually(timeout: .seconds(45)) { clock.sleeps == sleeps && clock.sleeping == 1 }
    }

    @Test func itRefetchesUntilCancelled() async throws {
        let store = FakeStore(ScenarioFixture.sample)
        let clock = ManualClock()
        let controller = Self.controller(store, on: clock)
        try await controller.performFetch()
        let changes = controller.changes
        let polling = controller.poll(every: .milliseconds(5))
        store.items.removeFirst()
        try #require(await Self.sleepsFor(1, on: clock), "the poller waits for its first tick")
        clock.advanceToNextDeadline()
        let refetched = await EventHarness.collect(1, from: changes, timeout: .seconds(45))
        #expect(refetched.first?.deletedItemIDs == [1], "a tick refetched and reported the difference")
        try #require(await Self.sleepsFor(2, on: clock))
        clock.advanceToNextDeadline()
        try #require(await Self.sleepsFor(3, on: clock), "every tick fetches, then waits for the next")
        #expect(store.calls == 3)
        polling.cancel()
        #expect(await EventHarness.eventually(timeout: .seconds(45)) { clock.sleeping == 0 }, "its sleep ends")
        clock.advance(by: .milliseconds(50))
        #expect(clock.wakes == 2 && clock.sleeps == 3, "no tick after the cancellation: nothing slept to wake")
        #expect(store.calls == 3)
    }

    /// A period of zero or less starts no poller: the control, a positive period on the same clock, sleeps and
    /// ticks; nothing else ever sleeps or fetches.
    @Test(arguments: [Duration.zero, .milliseconds(-3)])
    func aPeriodOfZeroOrLessPollsNothing(period: Duration) async throws {
        let store = FakeStore(ScenarioFixture.sample)
        let clock = ManualClock()
        let controller = Self.controller(store, on: clock)
        let polling = controller.poll(every: period)
        #expect(polling.isCancelled)
        let control = controller.poll(every: .milliseconds(1))
        try #require(await Self.sleepsFor(1, on: clock), "the control waits for its tick")
        clock.advanceToNextDeadline()
        try #require(await Self.sleepsFor(2, on: clock), "the control ticked, and waits for the next")
        control.cancel()
        #expect(await EventHarness.eventually(timeout: .seconds(45)) { clock.sleeping == 0 })
        #expect(clock.sleeps == 2, "only the control slept (a poller at zero would sleep until now, and loop)")
        #expect(store.calls == 1, "the control's tick alone fetched")
    }

    @Test func aTickIsSkippedWhileAFetchRuns() async throws {
        let gate = EventHarness.Gate()
        var fixture = EventHarness.Fixture(request: gate)
        let controller = fixture.controller
        let clock = ManualClock()
        controller._clock = clock.controllerClock
        let fetch = Task { try await controller.performFetch() }
        try #require(await EventHarness.eventually(timeout: .seconds(45)) { gate.waiters == 1 })
        let polling = controller.poll(every: .milliseconds(2))
        for tick in 1...5 {
            try #require(await Self.sleepsFor(tick, on: clock), "the poller waits for tick \(tick)")
            clock.advanceToNextDeadline()
        }
        try #require(await Self.sleepsFor(6, on: clock), "five ticks passed")
        #expect(gate.waiters == 1, "only the first fetch waits: the ticks found it running")
        gate.open()
        _ = try await fetch.value
        polling.cancel()
        fixture.reference.fetch(fixture.store.items)
        fixture.expectMatchesReference()
    }

    @Test func failuresAreReportedAndPollingGoesOn() async throws {
        let store = FakeStore(ScenarioFixture.sample)
        let log = EventHarness.DiagnosticLog()
        let controller = FetchedResultsController.make(store, diagnostics: log.handler)
        try await controller.performFetch()
        store.fails = true
        let polling = controller.poll(every: .milliseconds(3))
        #expect(await EventHarness.eventually(timeout: .seconds(45)) { log.fetchFailures.count >= 2 })
        store.fails = false
        store.items.removeFirst()
        #expect(
            await EventHarness.eventually(timeout: .seconds(45)) { controller.fetchedObjects.count == 5 },
            "a later tick succeeds")
        polling.cancel()
        #expect(controller.fetchedObjects.count == 5)
    }

    /// The polling task does not keep the controller: released, it ends at its next tick without fetching.
    @Test func pollingStopsWhenTheControllerIsReleased() async throws {
        let store = FakeStore(ScenarioFixture.sample)
        let clock = ManualClock()
        weak var released: FetchedResultsController<Item>?
        let polling: EventSubscription
        do {
            let controller = Self.controller(store, on: clock)
            released = controller
            try await controller.performFetch()
            polling = controller.poll(every: .milliseconds(3))
        }
        #expect(
            await EventHarness.eventually(timeout: .seconds(45)) { released == nil },
            "the polling task does not keep it")
        try #require(await Self.sleepsFor(1, on: clock))
        clock.advanceToNextDeadline()
        #expect(await EventHarness.eventually(timeout: .seconds(45)) { clock.wakes == 1 }, "its tick came")
        #expect(store.calls == 1, "and fetched nothing")
        withExtendedLifetime(polling) {}
    }

    /// The ticks keep a fixed rate: a fetch that takes 60 % of the period does not stretch it, as measuring
    /// the period from a fetch's end would (to 160 %).
    @Test func ticksKeepTheirRateWhileFetchesTakeTime() async throws {
        let starts = try await fetchStarts(period: .milliseconds(200), fetchTaking: .milliseconds(120), count: 5)
        #expect(starts == [200, 400, 600, 800, 1000], "not 200, 520, 840…")
    }

    /// A fetch that outlasts the period skips the ticks it spans: fetches never overlap, and the next one
    /// starts at the first tick after it.
    @Test func aFetchLongerThanThePeriodSkipsTheTicksItSpans() async throws {
        let starts = try await fetchStarts(period: .milliseconds(200), fetchTaking: .milliseconds(450), count: 4)
        #expect(starts == [200, 800, 1400, 2000], "the ticks at 400 and 600 found the fetch running")
    }

    /// Polls on a manual clock whose requests take `duration` of its time; returns when the first `count`
    /// fetches started, in milliseconds from the call.
    private func fetchStarts(period: Duration, fetchTaking duration: Duration, count: Int) async throws -> [Int] {
        let clock = ManualClock()
        let starts = Locked<[Int]>([])
        let definition = FetchDefinition<Item>(request: {
            let now = clock.now.offset
            starts.withLock { $0.append(Int(now / .milliseconds(1))) }
            try await clock.sleep(until: clock.now.advanced(by: duration))
            return ScenarioFixture.sample
        })
        let controller = FetchedResultsController(
            definition: definition, sortDescriptors: [SortDescriptor(\Item.score)])
        controller._clock = clock.controllerClock
        let polling = controller.poll(every: period)
        // Each step: wait until the poller sleeps again (for its tick, or in its fetch), then wake it.
        var sleeps = 0
        while starts.withLock({ $0.count }) < count {
            let isQuiescent = await EventHarness.eventually(timeout: .seconds(45)) {
                clock.sleeps > sleeps && clock.sleeping == 1
            }
            try #require(isQuiescent, "the poller sleeps again after each step")
            sleeps = clock.sleeps
            clock.advanceToNextDeadline()
        }
        polling.cancel()
        return Array(starts.withLock { $0 }.prefix(count))
    }

    @Test(arguments: [
        (late: 0.0, expected: 1), (late: 0.99, expected: 1), (late: 1.0, expected: 2), (late: 2.5, expected: 3),
        (late: 7.0, expected: 8),
    ])
    func theNextTickIsTheFirstOneOnTheGridAfterNow(late: Double, expected: Int) {
        let tick = ContinuousClock.now
        let period = Duration.milliseconds(300)
        let next = _PollingSchedule.tick(after: tick, every: period, now: tick.advanced(by: period * late))
        #expect(next == tick.advanced(by: period * expected))
    }

    /// A period of an attosecond after a fetch of ten seconds: no trap converting the count of ticks passed,
    /// and the next tick is still after now.
    @Test func aTinyPeriodAfterALongFetchStillGivesATickAfterNow() {
        let tick = ContinuousClock.now
        let period = Duration(secondsComponent: 0, attosecondsComponent: 1)
        let now = tick.advanced(by: .seconds(10))
        let next = _PollingSchedule.tick(after: tick, every: period, now: now)
        #expect(next > now && next <= now.advanced(by: .nanoseconds(1)))
    }
}
