import Foundation
import LiveResults
import LiveResultsTesting
import Observation
import Testing

/// `ObservableResults` over every kind of live results (the *Observation* and *LiveWindows* articles): a window, a
/// collapsible view and a replica, as over a controller. Each change set shown turns the previous snapshot into the
/// next one.
@Suite("Observable results of windows, views and replicas", .timeLimit(.minutes(5)), .tags(.concurrent))
struct ObservableResultsSourcesTests {
    static let items = (1...6).map { Item($0, section: $0 <= 3 ? "a" : "b", score: $0) }

    /// The ids a snapshot shows, by section.
    static func ids(_ snapshot: FetchedResultsSnapshot<Item>) -> [[Int]] {
        snapshot.sections.map { $0.objects.map(\.id) }
    }

    @Test @MainActor func aWindow() async throws {
        let controller = FetchedResultsController.make(FakeStore(Self.items))
        let window = controller.window(.first(2))
        let model = ObservableResults(window)
        #expect(model.controller === controller, "the window's controller")
        #expect(model.fetchedObjects.isEmpty)
        await model.fetchIfNeeded()
        #expect(model.state.isLoaded)
        #expect(Self.ids(model.snapshot) == [[1, 2]])
        let before = model.snapshot
        controller.apply(.inserted(Item(0, section: "a", score: 0)))
        let shown = await EventHarness.eventually { Self.ids(model.snapshot) == [[0, 1]] }
        #expect(shown)
        let changes = try #require(model.lastChanges)
        #expect(changes.insertedItemIDs == [0] && changes.deletedItemIDs == [2])
        try ChangeSetContract.verify(changes, from: before, to: model.snapshot)
    }

    @Test @MainActor func aWindowResumedShowsItsCatchUpBeforeReturning() async throws {
        let controller = FetchedResultsController.make(FakeStore(Self.items))
        try await controller.performFetch()
        let model = ObservableResults(controller.window(.first(3)))
        model.pause()
        #expect(model.isPaused)
        controller.apply([.deleted(1), .inserted(Item(7, section: "a", score: 0))])
        let before = model.snapshot
        #expect(Self.ids(before) == [[1, 2, 3]], "paused with the controller")
        model.resume()
        #expect(Self.ids(model.snapshot) == [[7, 2, 3]] && !model.isPaused)
        try ChangeSetContract.verify(try #require(model.lastChanges), from: before, to: model.snapshot)
    }

    @Test @MainActor func aCollapsibleView() async throws {
        let controller = FetchedResultsController.make(FakeStore(Self.items))
        try await controller.performFetch()
        let view = CollapsibleSections(controller)
        let model = ObservableResults(view)
        #expect(model.controller === controller)
        #expect(Self.ids(model.snapshot) == [[1, 2, 3], [4, 5, 6]])
        let before = model.snapshot
        let collapsed = view.collapse("a")
        let shown = await EventHarness.eventually { Self.ids(model.snapshot) == [[], [4, 5, 6]] }
        #expect(shown)
        #expect(model.lastChanges == collapsed)
        try ChangeSetContract.verify(collapsed, from: before, to: model.snapshot)
    }

    @Test @MainActor func aReplica() async throws {
        let controller = FetchedResultsController.make(FakeStore(Self.items))
        try await controller.performFetch()
        let replica = ResultsReplica<Item>()
        let model = ObservableResults(replica)
        #expect(model.controller == nil && model.state.isIdle)
        await model.fetchIfNeeded()
        #expect(model.fetchedObjects.isEmpty, "nothing to fetch without a controller")
        try replica.apply(controller.wholeResults())
        let first = await EventHarness.eventually { Self.ids(model.snapshot) == [[1, 2, 3], [4, 5, 6]] }
        #expect(first)
        #expect(model.lastChanges?.insertedItemIDs.count == 6)
        let updates = controller.updates(since: replica.version).makeAsyncIterator()
        controller.apply(.updated(Item(1, section: "b", score: 9)))
        let before = model.snapshot
        try replica.apply(try #require(await updates.next()))
        let second = await EventHarness.eventually { Self.ids(model.snapshot) == [[2, 3], [4, 5, 6, 1]] }
        #expect(second)
        try ChangeSetContract.verify(try #require(model.lastChanges), from: before, to: model.snapshot)
    }
}
