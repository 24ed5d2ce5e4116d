import Foundation
import LiveResults
import Observation
import Testing

/// The `@Observable` model (the *Observation* article), observed with `withObservationTracking` on Linux.
@Suite("Observable results", .timeLimit(.minutes(5)), .tags(.concurrent))
struct ObservableResultsTests {
    /// Counts the observable changes of the model's change-set properties, tracking them again after each.
    final class ChangeCounter: Sendable {
        private let count = Locked(0)
        var value: Int { count.withLock { $0 } }

        @MainActor func track(_ model: ObservableResults<Item>) {
            withObservationTracking {
                _ = model.snapshot
                _ = model.lastChanges
                _ = model.state
            } onChange: { [self] in
                count.withLock { $0 += 1 }
                Task { @MainActor in self.track(model) }
            }
        }
    }

    @Test @MainActor func itFetchesOnceAndShowsTheResults() async throws {
        let store = FakeStore(ScenarioFixture.sample)
        let model = ObservableResults(FetchedResultsController.make(store))
        let before = (model.state.isIdle, model.fetchedObjects.isEmpty)
        #expect(before == (true, true))
        await model.fetchIfNeeded()
        let isLoaded = model.state.isLoaded
        #expect(isLoaded)
        let arrived1 = await EventHarness.eventually { model.fetchedObjects.count == 6 }
        #expect(arrived1)
        let names = model.sections.map(\.name)
        #expect(names == ["a", "b", "c"])
        await model.fetchIfNeeded()
        #expect(store.calls == 1)
    }

    @Test @MainActor func savedResultsShowTheirOriginWhileTheRefreshRuns() async throws {
        let scenario = CacheScenario(ScenarioFixture.sample)
        try await scenario.controller(.thenFetch).performFetch()
        let savedAt = scenario.now
        let gate = scenario.holdRequests()
        let model = ObservableResults(scenario.controller(.thenFetch))
        let startOrigin = model.resultsOrigin
        #expect(startOrigin == .none)
        let fetch = Task { @MainActor in await model.fetchIfNeeded() }
        let cached = await EventHarness.eventually { model.resultsOrigin == .cache(savedAt: savedAt) }
        #expect(cached)
        let shown = (model.state.isLoading, model.fetchedObjects.count)
        #expect(shown == (true, 6))
        gate.open()
        await fetch.value
        let refreshed = (model.resultsOrigin, model.state.isLoaded)
        #expect(refreshed == (.request, true), "updated by the fetch, although the refresh changed nothing")
    }

    @Test @MainActor func aFailedFetchShowsInTheState() async throws {
        let store = FakeStore(ScenarioFixture.sample)
        store.fails = true
        let model = ObservableResults(FetchedResultsController.make(store))
        await model.fetchIfNeeded()
        let error = model.state.error
        #expect((error as? FakeStore.Failure) != nil)
    }

    @Test @MainActor func oneObservableChangePerChangeSet() async throws {
        let controller = FetchedResultsController.make(FakeStore(ScenarioFixture.sample))
        try await controller.performFetch()
        let model = ObservableResults(controller)
        let counter = ChangeCounter()
        counter.track(model)
        var applied: [ChangeSet<Item>] = []
        for id in 1...3 {
            applied.append(controller.apply(.deleted(id)))
            let arrived2 = await EventHarness.eventually { counter.value == id }
            #expect(arrived2, "change \(id)")
            let last = model.lastChanges
            #expect(last == applied.last)
        }
        let shown = SnapshotModel(model.snapshot)
        #expect(shown == SnapshotModel(controller.snapshot))
        // Real time: the absence of an observation is checked after a wait in which a stray one would show.
        try await Task.sleep(for: .milliseconds(20))
        #expect(counter.value == 3, "no change without a change set")
    }

    @Test @MainActor func pausingShowsInTheModelAndResumeCatchesItUp() async throws {
        let controller = FetchedResultsController.make(FakeStore(ScenarioFixture.sample))
        try await controller.performFetch()
        let model = ObservableResults(controller)
        model.pause()
        let isPaused = model.isPaused
        #expect(isPaused && controller.isPaused)
        controller.apply(.deleted(1))
        controller.apply(.deleted(2))
        // Real time: the absence of a delivery while paused is checked after a wait in which one would show.
        try await Task.sleep(for: .milliseconds(10))
        let whilePaused = model.fetchedObjects.count
        #expect(whilePaused == 6, "nothing delivered while paused")
        model.resume()
        let isStillPaused = model.isPaused
        #expect(!isStillPaused)
        let arrived3 = await EventHarness.eventually { model.fetchedObjects.count == 4 }
        #expect(arrived3)
        let caughtUp = model.lastChanges?.deletedItemIDs
        #expect(caughtUp == [1, 2], "one catch-up change set")
    }

    @Test @MainActor func aReleasedModelLetsTheControllerGoOn() async throws {
        let controller = FetchedResultsController.make(FakeStore(ScenarioFixture.sample))
        try await controller.performFetch()
        weak var released: ObservableResults<Item>?
        do {
            let model = ObservableResults(controller)
            released = model
            controller.apply(.deleted(1))
        }
        let arrived4 = await EventHarness.eventually { released == nil }
        #expect(arrived4, "nothing keeps the model")
        #expect(controller.apply(.deleted(2)).deletedItemIDs == [2])
        #expect(controller.fetchedObjects.count == 4)
    }
}
