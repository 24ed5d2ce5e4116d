import Foundation
import LiveResults
import Testing

/// Polling (DESIGN.md §13): refetches on a period until cancelled, skipping ticks while a fetch runs.
@Suite("Polling", .timeLimit(.minutes(5)))
struct PollingTests {
    @Test func itRefetchesUntilCancelled() async throws {
        let store = FakeStore(ScenarioFixture.sample)
        let controller = FetchedResultsController.make(store)
        try await controller.performFetch()
        let changes = controller.changes
        let polling = controller.poll(every: .milliseconds(5))
        store.items.removeFirst()
        let refetched = await EventHarness.collect(1, from: changes, timeout: .seconds(45))
        #expect(refetched.first?.deletedItemIDs == [1], "a tick refetched and reported the difference")
        #expect(await EventHarness.eventually(timeout: .seconds(45)) { store.calls >= 3 })
        polling.cancel()
        try await Task.sleep(for: .milliseconds(20))
        let calls = store.calls
        try await Task.sleep(for: .milliseconds(40))
        #expect(store.calls == calls, "no tick after the cancellation")
    }

    @Test(arguments: [Duration.zero, .milliseconds(-3)])
    func aPeriodOfZeroOrLessPollsNothing(period: Duration) async throws {
        let store = FakeStore(ScenarioFixture.sample)
        let controller = FetchedResultsController.make(store)
        let polling = controller.poll(every: period)
        #expect(polling.isCancelled)
        try await Task.sleep(for: .milliseconds(20))
        #expect(store.calls == 0)
    }

    @Test func aTickIsSkippedWhileAFetchRuns() async throws {
        let gate = EventHarness.Gate()
        var fixture = EventHarness.Fixture(request: gate)
        let controller = fixture.controller
        let fetch = Task { try await controller.performFetch() }
        try await Task.sleep(for: .milliseconds(5))
        let polling = controller.poll(every: .milliseconds(2))
        try await Task.sleep(for: .milliseconds(40))
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

    @Test func pollingStopsWhenTheControllerIsReleased() async throws {
        let store = FakeStore(ScenarioFixture.sample)
        weak var released: FetchedResultsController<Item>?
        let polling: EventSubscription
        do {
            let controller = FetchedResultsController.make(store)
            released = controller
            try await controller.performFetch()
            polling = controller.poll(every: .milliseconds(3))
        }
        #expect(
            await EventHarness.eventually(timeout: .seconds(45)) { released == nil },
            "the polling task does not keep it")
        let calls = store.calls
        try await Task.sleep(for: .milliseconds(30))
        #expect(store.calls == calls)
        withExtendedLifetime(polling) {}
    }
}
