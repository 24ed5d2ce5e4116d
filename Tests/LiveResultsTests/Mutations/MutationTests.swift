import Foundation
import LiveResults
import Testing

/// Mutations (the *LifeOfAQuery* article): optimistic events shown at once, kept and followed by invalidation when
/// the operation succeeds, rolled back when it throws (a later live event winning).
@Suite("Mutations", .timeLimit(.minutes(5)), .tags(.concurrent))
struct MutationTests {
    struct WriteFailed: Error {}

    /// A registry holding a controller over `store` under ["items"], fetched.
    static func shared(_ store: FakeStore) async throws -> (ResultsRegistry, FetchedResultsController<Item>) {
        let registry = ResultsRegistry()
        let controller = registry.controller(for: ["items"]) {
            FetchedResultsController.make(store)
        }
        try await controller.performFetch()
        return (registry, controller)
    }

    @Test("a successful operation keeps the optimistic events, then refetches the keys it names")
    func success() async throws {
        let store = FakeStore(ScenarioFixture.sample)
        let (registry, controller) = try await Self.shared(store)
        let recorder = EventHarness.ChainRecorder<Item>(initial: SnapshotModel(controller.snapshot))
        controller.delegate = recorder
        let gate = EventHarness.Gate()
        let rename = Mutation(
            controller: controller,
            optimistic: { (item: Item) in [.updated(item)] },
            invalidating: [["items"]], in: registry
        ) { (item: Item) -> String in
            await gate.wait()
            store.items = store.items.map {
                $0.id == item.id ? Item(item.id, section: "a", score: 99, title: "server") : $0
            }
            return "saved #\(item.id)"
        }
        let run = Task { try await rename.run(Item(1, section: "a", score: 10, title: "edited")) }
        #expect(
            await EventHarness.eventually(timeout: .seconds(45)) { controller.object(withID: 1)?.title == "edited" })
        #expect(store.calls == 1)
        gate.open()
        #expect(try await run.value == "saved #1")
        #expect(store.calls == 2, "invalidated: refetched")
        #expect(controller.object(withID: 1) == Item(1, section: "a", score: 99, title: "server"))
        recorder.expectChain()
    }

    @Test("a controller under two of the named prefixes is refetched once")
    func overlappingPrefixes() async throws {
        let store = FakeStore(ScenarioFixture.sample)
        let (registry, controller) = try await Self.shared(store)
        let touch = Mutation(controller: controller, invalidating: [[], ["items"]], in: registry) { (_: Int) in }
        try await touch.run(1)
        #expect(store.calls == 2, "the first fetch, then one refetch")
    }

    @Test("a failing operation rolls the optimistic events back and rethrows; nothing is invalidated")
    func failure() async throws {
        let store = FakeStore(ScenarioFixture.sample)
        let (registry, controller) = try await Self.shared(store)
        let before = SnapshotModel(controller.snapshot)
        let recorder = EventHarness.ChainRecorder<Item>(initial: before)
        controller.delegate = recorder
        let remove = Mutation(
            controller: controller, optimistic: { (id: Int) in [.deleted(id), .inserted(Item(70, section: "q"))] },
            invalidating: [["items"]], in: registry
        ) { (_: Int) in throw WriteFailed() }
        await #expect(throws: WriteFailed.self) { try await remove.run(2) }
        #expect(SnapshotModel(controller.snapshot) == before)
        #expect(store.calls == 1)
        #expect(recorder.deliveryCount == 2, "the optimistic change set, then the rollback")
        recorder.expectChain()
    }

    @Test("a live event during the operation wins over the rollback")
    func liveEventWins() async throws {
        let store = FakeStore(ScenarioFixture.sample)
        let controller = FetchedResultsController.make(store)
        try await controller.performFetch()
        let gate = EventHarness.Gate()
        let edit = Mutation(controller: controller, optimistic: { (item: Item) in [.updated(item)] }) {
            (_: Item) in
            await gate.wait()
            throw WriteFailed()
        }
        let run = Task { try await edit.run(Item(3, section: "a", score: 30, title: "mine")) }
        #expect(await EventHarness.eventually(timeout: .seconds(45)) { controller.object(withID: 3)?.title == "mine" })
        controller.apply(.updated(Item(3, section: "b", score: 1, title: "live")))
        controller.apply(.updated(Item(4, section: "b", score: 12, title: "unrelated")))
        gate.open()
        await #expect(throws: WriteFailed.self) { try await run.value }
        #expect(controller.object(withID: 3) == Item(3, section: "b", score: 1, title: "live"))
        #expect(controller.object(withID: 4)?.title == "unrelated")
    }

    @Test("a cancelled run rolls back")
    func cancellation() async throws {
        let store = FakeStore(ScenarioFixture.sample)
        let controller = FetchedResultsController.make(store)
        try await controller.performFetch()
        let before = SnapshotModel(controller.snapshot)
        let edit = Mutation(controller: controller, optimistic: { (id: Int) in [.deleted(id)] }) { (_: Int) in
            // A write that does not end before the test cancels it (`Task.sleep` throws on cancellation).
            try await Task.sleep(for: .seconds(600))
        }
        let run = Task { try await edit.run(5) }
        #expect(await EventHarness.eventually(timeout: .seconds(45)) { controller.object(withID: 5) == nil })
        run.cancel()
        await #expect(throws: CancellationError.self) { try await run.value }
        #expect(SnapshotModel(controller.snapshot) == before)
    }
}
