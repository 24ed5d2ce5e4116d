import Foundation
import LiveResults
import LiveResultsTesting
import Testing

/// `ObservableResults` as a user writes it: what its fetch fetched is shown when `fetchIfNeeded()`
/// returns, with no waiting, and each change set is shown once, in order, whoever shows it first (the
/// model's own calls or the turn of the main actor its delivery schedules).
@Suite("Observable results: fetch and delivery", .timeLimit(.minutes(5)), .tags(.concurrent))
struct ObservableResultsDeliveryTests {
    /// Lets the main actor run the turns queued so far, a few times over.
    @MainActor static func settle() async {
        for _ in 0..<5 {
            await Task.yield()
            // Real time: the main actor's turns are queued by other threads' deliveries, which nothing here awaits.
            try? await Task.sleep(for: .milliseconds(2))
        }
    }

    @Test @MainActor func theFetchIsShownWhenFetchIfNeededReturns() async throws {
        let store = FakeStore(ScenarioFixture.sample)
        let model = ObservableResults(FetchedResultsController.make(store))
        await model.fetchIfNeeded()
        #expect(model.fetchedObjects.map(\.id) == [1, 2, 3, 4, 5, 6])
        #expect(model.sections.map(\.name) == ["a", "b", "c"])
        #expect(model.state.isLoaded)
        #expect(model.resultsOrigin == .request)
        let fetched = try #require(model.lastChanges)
        #expect(fetched.insertedItemIDs == [1, 2, 3, 4, 5, 6])
        #expect(fetched.insertedSectionNames == ["a", "b", "c"])
        // The fetch's delivery arrives on a later turn: it is not shown a second time.
        await Self.settle()
        #expect(model.lastChanges == fetched)
        #expect(SnapshotModel(model.snapshot) == SnapshotModel(model.controller.snapshot))
    }

    @Test @MainActor func twoTasksFetchingAtOnceShareOneFetchAndBothSeeIt() async throws {
        let store = FakeStore(ScenarioFixture.sample)
        let gate = EventHarness.Gate()
        let controller = FetchedResultsController(
            definition: FetchDefinition(request: {
                await gate.wait()
                return try store.fetch()
            }),
            sortDescriptors: [SortDescriptor(\Item.score)], sectionNameKeyPath: \Item.section)
        let model = ObservableResults(controller)
        let first = Task { @MainActor in
            await model.fetchIfNeeded()
            return model.fetchedObjects.count
        }
        let second = Task { @MainActor in
            await model.fetchIfNeeded()
            return model.fetchedObjects.count
        }
        let waiting = await EventHarness.eventually { gate.waiters == 1 }
        #expect(waiting)
        gate.open()
        let counts = (await first.value, await second.value)
        #expect(counts == (6, 6))
        #expect(store.calls == 1, "one fetch")
        await model.fetchIfNeeded()
        #expect(store.calls == 1, "later calls fetch nothing")
    }

    @Test @MainActor func resumeShowsTheCatchUpBeforeItReturnsAndOnlyOnce() async throws {
        let controller = FetchedResultsController.make(FakeStore(ScenarioFixture.sample))
        let model = ObservableResults(controller)
        await model.fetchIfNeeded()
        model.pause()
        controller.apply(.deleted(1))
        controller.apply(.deleted(2))
        await Self.settle()
        #expect(model.fetchedObjects.count == 6, "nothing delivered while paused")
        let frozen = SnapshotModel(model.snapshot)
        model.resume()
        #expect(!model.isPaused)
        #expect(model.fetchedObjects.map(\.id) == [3, 4, 5, 6])
        let caughtUp = try #require(model.lastChanges)
        #expect(caughtUp.deletedItemIDs == [1, 2])
        expectContract(caughtUp, from: frozen, to: SnapshotModel(model.snapshot))
        await Self.settle()
        #expect(model.lastChanges == caughtUp, "the resume's delivery is not shown again")
    }

    @Test @MainActor func aRefetchThroughTheControllerIsShownOnce() async throws {
        let store = FakeStore(ScenarioFixture.sample)
        let controller = FetchedResultsController.make(store)
        let model = ObservableResults(controller)
        await model.fetchIfNeeded()
        let before = SnapshotModel(model.snapshot)
        store.items = ScenarioFixture.sample.filter { $0.id != 4 } + [Item(7, section: "d", score: 1)]
        let refetched = try await controller.performFetch()
        let shown = await EventHarness.eventually { model.fetchedObjects.count == 6 && model.lastChanges == refetched }
        #expect(shown)
        expectContract(refetched, from: before, to: SnapshotModel(model.snapshot))
        await Self.settle()
        #expect(model.lastChanges == refetched)
        #expect(SnapshotModel(model.snapshot) == SnapshotModel(controller.snapshot))
    }

    /// With callbacks on the main queue, the fetch's delivery reaches the model after `fetchIfNeeded()`
    /// returns: the model shows the fetched results from the controller, and skips the delivery.
    @Test @MainActor func withCallbacksOnTheMainQueueTheFetchIsShownAndItsDeliverySkipped() async throws {
        let controller = FetchedResultsController.make(FakeStore(ScenarioFixture.sample))
        controller.callbackScheduler = .mainActor
        let model = ObservableResults(controller)
        await model.fetchIfNeeded()
        #expect(model.fetchedObjects.map(\.id) == [1, 2, 3, 4, 5, 6])
        let fetched = try #require(model.lastChanges)
        #expect(fetched.insertedItemIDs == [1, 2, 3, 4, 5, 6])
        await Self.settle()
        #expect(model.lastChanges == fetched)
        let before = SnapshotModel(model.snapshot)
        let deleted = controller.apply(.updated(Item(1, section: "b", score: 5)))
        let arrived = await EventHarness.eventually { model.lastChanges == deleted }
        #expect(arrived)
        expectContract(deleted, from: before, to: SnapshotModel(model.snapshot))
    }

    /// Random changes made on the main actor and from other threads, pauses, resumes and refetches: after
    /// each step the model comes to the controller's results, and what it shows last is the last change
    /// set applied to what it showed before (never one shown twice, or out of order).
    @Test(arguments: [1, 2, 3]) @MainActor func randomChangesAreShownOnceAndInOrder(seed: UInt64) async throws {
        var random = SeededGenerator(seed: seed)
        let store = FakeStore(ScenarioFixture.sample)
        let controller = FetchedResultsController.make(store)
        let model = ObservableResults(controller)
        await model.fetchIfNeeded()
        var nextID = 100
        for step in 0..<60 {
            let before = SnapshotModel(model.snapshot)
            let previousChanges = model.lastChanges
            var expected: ChangeSet<Item>?
            let ids = controller.snapshot.fetchedObjects.map(\.id)
            func randomItem() -> Item {
                nextID += 1
                return Item(
                    nextID, section: ["a", "b", "c", "d"].randomElement(using: &random)!,
                    score: Int.random(in: 0..<50, using: &random))
            }
            switch Int.random(in: 0..<6, using: &random) {
            case 0: expected = controller.apply(.inserted(randomItem()))
            case 1:
                if let id = ids.randomElement(using: &random) { expected = controller.apply(.deleted(id)) }
            case 2:
                let item = randomItem()
                expected = await Task.detached { controller.apply(.inserted(item)) }.value
            case 3:
                model.pause()
                controller.apply(.inserted(randomItem()))
                if let id = ids.randomElement(using: &random) { controller.apply(.deleted(id)) }
                model.resume()
                #expect(SnapshotModel(model.snapshot) == SnapshotModel(controller.snapshot), "step \(step)")
                expected = SnapshotModel(model.snapshot) == before ? nil : model.lastChanges
            case 4:
                store.items =
                    controller.snapshot.fetchedObjects.filter { _ in Bool.random(using: &random) }
                    + [randomItem()]
                expected = try await controller.performFetch()
            default:
                if let id = ids.randomElement(using: &random) {
                    let moved = Item(id, section: "e", score: Int.random(in: 0..<50, using: &random))
                    expected = controller.apply(.updated(moved))
                }
            }
            let caughtUp = await EventHarness.eventually {
                SnapshotModel(model.snapshot) == SnapshotModel(controller.snapshot)
            }
            #expect(caughtUp, "step \(step)")
            await Self.settle()
            if let expected, !expected.isEmpty {
                #expect(model.lastChanges == expected, "step \(step)")
                expectContract(expected, from: before, to: SnapshotModel(model.snapshot))
            } else {
                #expect(model.lastChanges == previousChanges, "step \(step): nothing new shown")
            }
        }
    }

    @Test @MainActor func aModelReleasedWithADeliveryPendingGoesQuietly() async throws {
        let controller = FetchedResultsController.make(FakeStore(ScenarioFixture.sample))
        try await controller.performFetch()
        weak var released: ObservableResults<Item>?
        do {
            let model = ObservableResults(controller)
            released = model
            // Each delivery queues a turn of the main actor for the model; it is released before them.
            for id in 1...3 { controller.apply(.deleted(id)) }
        }
        await Self.settle()
        #expect(released == nil, "nothing keeps the model")
        #expect(controller.apply(.deleted(4)).deletedItemIDs == [4])
        #expect(controller.fetchedObjects.map(\.id) == [5, 6])
    }
}
