import Foundation
import Testing

@testable import LiveResults

/// The change set between two versions of the results, from what differs between them (the mechanism of
/// pausing and coalescing): random runs of events between two snapshots, checked against the contract,
/// including minimal moves.
@Suite("Change sets between two versions")
struct VersionDiffTests {
    typealias Workload = RandomizedModelTests.Workload

    func changeSet(from old: FetchedResultsSnapshot<Item>, to new: FetchedResultsSnapshot<Item>) -> ChangeSet<Item> {
        _VersionDiff.changeSet(from: old._storage, to: new._storage, isRebuilt: false)
    }

    @Test(
        "random runs of events between two versions satisfy the contract",
        arguments: [
            (seed: UInt64(41), sectioned: true, filtered: false),
            (seed: 42, sectioned: true, filtered: true),
            (seed: 43, sectioned: false, filtered: false),
            (seed: 44, sectioned: false, filtered: true),
        ])
    func randomRuns(seed: UInt64, sectioned: Bool, filtered: Bool) async throws {
        var workload = Workload(seed: seed, idSpace: 150)
        let isIncluded: @Sendable (Item) -> Bool = { item in !filtered || item.score != 7 }
        let controller = FetchedResultsController.make(
            FakeStore(workload.fetchResult(count: 100)), sectioned: sectioned, isIncluded: isIncluded)
        try await controller.performFetch()
        for run in 0..<400 {
            let old = controller.snapshot
            // From no event to runs long enough to touch most entities.
            let length = [0, 1, 2, 5, 20, 80][run % 6]
            for _ in 0..<length {
                controller.apply(workload.batch(knownItems: Array(controller.fetchedObjects)))
            }
            let new = controller.snapshot
            let changes = changeSet(from: old, to: new)
            expectContract(changes, from: SnapshotModel(old), to: SnapshotModel(new))
            if length == 0 { #expect(changes.isEmpty) }
        }
    }

    @Test func anEntityInsertedAndDeletedInBetweenDoesNotAppear() async throws {
        let controller = FetchedResultsController.make(FakeStore([Item(1, score: 1), Item(2, score: 2)]))
        try await controller.performFetch()
        let old = controller.snapshot
        controller.apply(.inserted(Item(3, score: 0)))
        controller.apply(.updated(Item(1, score: 1, title: "changed")))
        controller.apply(.deleted(3))
        controller.apply(.updated(Item(1, score: 1)))
        #expect(changeSet(from: old, to: controller.snapshot).isEmpty, "inserted then deleted; updated then reverted")
    }

    @Test func theEntityThatMovedIsTheOneReportedMoved() async throws {
        let items = (0..<10).map { Item($0, score: $0 * 10) }
        let controller = FetchedResultsController.make(FakeStore(items), sectioned: false)
        try await controller.performFetch()
        let old = controller.snapshot
        controller.apply(.updated(Item(2, score: 55)))
        controller.apply(.updated(Item(2, score: 95)))
        controller.apply(.updated(Item(7, title: "content only")))
        controller.apply(.updated(Item(7, score: 70, title: "content only")))
        let changes = changeSet(from: old, to: controller.snapshot)
        expectContract(changes, from: SnapshotModel(old), to: SnapshotModel(controller.snapshot))
        #expect(changes.movedItemIDs == [2])
        #expect(
            changes.movedItems == [ItemMove(from: IndexPath(item: 2, section: 0), to: IndexPath(item: 9, section: 0))])
        #expect(changes.updatedItemIDs == [7, 2])
    }

    @Test func aRebuiltVersionIsComparedWhole() async throws {
        let store = FakeStore((0..<20).map { Item($0, section: $0 % 2 == 0 ? "a" : "b", score: $0) })
        let controller = FetchedResultsController.make(store)
        try await controller.performFetch()
        let old = controller.snapshot
        controller.resort(using: [SortDescriptor(\Item.score, order: .reverse)])
        store.items.removeFirst(3)
        try await controller.performFetch()
        let new = controller.snapshot
        let changes = _VersionDiff.changeSet(from: old._storage, to: new._storage, isRebuilt: true)
        expectContract(changes, from: SnapshotModel(old), to: SnapshotModel(new))
        #expect(changes.deletedItemIDs.sorted() == [0, 1, 2])
    }
}
