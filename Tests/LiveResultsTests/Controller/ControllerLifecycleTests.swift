import Foundation
import LiveResults
import Synchronization
import Testing

@Suite("Controller lifecycle", .tags(.concurrent))
struct ControllerLifecycleTests {
    @Test("an invalidation during the first fetch fetches again, and the stale result is dropped")
    func invalidationDuringTheFirstFetchFetchesAgain() async throws {
        let store = FakeStore([Item(1, score: 1)])
        let gate = EventHarness.Gate()
        let calls = Atomic(0)
        // The first request reads the store, then waits: its result predates the invalidation.
        let definition = FetchDefinition<Item>(request: {
            let items = try store.fetch()
            if calls.add(1, ordering: .relaxed).newValue == 1 { await gate.wait() }
            return items
        })
        let controller = FetchedResultsController(
            definition: definition, sortDescriptors: [SortDescriptor(\Item.score)])
        let changes = controller.changes
        let firstFetch = Task { try await controller.performFetch() }
        #expect(await EventHarness.eventually { gate.waiters == 1 })

        store.items = [Item(2, score: 2), Item(3, score: 3)]
        controller.apply(.invalidated)
        let refetched = await EventHarness.collect(1, from: changes).first
        gate.open()

        #expect(refetched?.insertedItemIDs == [2, 3])
        #expect(try await firstFetch.value.isEmpty, "the superseded first fetch reports nothing")
        #expect(controller.fetchedObjects.map(\.id) == [2, 3])
        #expect(controller.state.isLoaded)
    }

    @Test("change streams finish when the controller is released")
    func changeStreamsFinishWhenTheControllerIsReleased() async throws {
        var controller: FetchedResultsController<Item>? = .make(FakeStore([Item(1)]))
        let changes = controller!.changes
        weak let released = controller
        controller = nil
        #expect(released == nil)
        var iterator = changes.makeAsyncIterator()
        #expect(await iterator.next() == nil)
    }

    @Test("the controller looks entities up by id")
    func lookupByID() async throws {
        let controller = FetchedResultsController.make(FakeStore([Item(1, section: "b"), Item(2, section: "a")]))
        try await controller.performFetch()
        #expect(controller.object(withID: 1) == Item(1, section: "b"))
        #expect(controller.indexPath(forID: 1) == IndexPath(item: 0, section: 1))
        #expect(controller.indexPath(forID: 3) == nil)
        #expect(controller.object(withID: 3) == nil)
    }
}
