import LiveResults
import Testing

/// What a controller, its windows and a registry of live queries report of the versions they hold for update
/// streams: nothing until a stream opens, one more per version while one is open.
@Suite("Held versions", .timeLimit(.minutes(1)))
struct HeldVersionsTests {
    func loaded() async throws -> FetchedResultsController<Item> {
        let controller = FetchedResultsController.make(
            FakeStore((0..<20).map { Item($0, section: ["a", "b"][$0 % 2], score: $0) }))
        try await controller.performFetch()
        return controller
    }

    @Test("a controller holds no version until a stream opens, then one per change set, each with its bytes")
    func controller() async throws {
        let controller = try await loaded()
        controller.apply(.updated(Item(1, section: "b", score: 100)))
        #expect(controller.heldVersions == HeldVersions())
        let updates = controller.updates().makeAsyncIterator()
        _ = try #require(await updates.next())
        controller.apply(.updated(Item(1, section: "b", score: 101)))
        let one = controller.heldVersions
        #expect(one.count == 1 && one.estimatedBytes > 0)
        // A version that replaced three entities keeps more than one that replaced one.
        controller.apply([
            .updated(Item(2, section: "a", score: 102)), .updated(Item(3, section: "b", score: 103)), .deleted(4),
        ])
        let two = controller.heldVersions
        #expect(two.count == 2 && two.estimatedBytes - one.estimatedBytes > one.estimatedBytes)
        _ = updates
    }

    @Test("a window's versions count beside its controller's, once its stream opened")
    func window() async throws {
        let controller = try await loaded()
        let window = controller.window(.first(5))
        #expect(controller.heldVersions.count == 0)
        let updates = window.updates().makeAsyncIterator()
        _ = try #require(await updates.next())
        // The window holds its current version from its stream's start.
        #expect(controller.heldVersions.count == 1)
        controller.apply(.updated(Item(0, section: "a", score: -1)))
        #expect(await EventHarness.eventually { controller.heldVersions.count == 2 })
        _ = updates
    }
}
