import Foundation
@_spi(Testing) import LiveResults
import LiveResultsTesting
import Testing

/// Thousands of random batches, each checked against the reference model and the change-set contract.
@Suite("Randomized batches against the reference model")
struct RandomizedModelTests {
    /// Random events over a small id space, so that batches often hit the same entity twice, hit
    /// unknown ids, and make many ties.
    struct Workload {
        var random: SeededGenerator
        let sections = ["a", "b", "c", "é", "日本"]
        let idSpace: Int

        init(seed: UInt64, idSpace: Int) {
            random = SeededGenerator(seed: seed)
            self.idSpace = idSpace
        }

        mutating func item(_ id: Int) -> Item {
            Item(
                id,
                section: sections.randomElement(using: &random)!,
                score: Int.random(in: 0..<8, using: &random),
                title: ["x", "y", "z"].randomElement(using: &random)!
            )
        }

        /// A variation of `item` that changes one thing, or nothing.
        mutating func variation(of item: Item) -> Item {
            var changed = item
            switch Int.random(in: 0..<5, using: &random) {
            case 0: changed.title = ["x", "y", "z"].randomElement(using: &random)!
            case 1: changed.score = Int.random(in: 0..<8, using: &random)
            case 2: changed.section = sections.randomElement(using: &random)!
            case 3: changed = self.item(item.id)
            default: break
            }
            return changed
        }

        mutating func event(knownItems: [Item]) -> EntityEvent<Item> {
            let known = knownItems.randomElement(using: &random)
            let id = Int.random(in: 0..<idSpace, using: &random)
            switch Int.random(in: 0..<10, using: &random) {
            case 0...1: return .inserted(item(id))
            case 2...5: return .updated(known.map { variation(of: $0) } ?? item(id))
            case 6: return .updated(item(id))
            case 7: return .inserted(known.map { variation(of: $0) } ?? item(id))
            case 8: return .deleted(known?.id ?? id)
            default: return .deleted(id)
            }
        }

        mutating func batch(knownItems: [Item]) -> [EntityEvent<Item>] {
            (0..<Int.random(in: 1...6, using: &random)).map { _ in event(knownItems: knownItems) }
        }

        mutating func fetchResult(count: Int) -> [Item] {
            (0..<count).map { _ in item(Int.random(in: 0..<idSpace, using: &random)) }
        }
    }

    /// How the controller sorts: one abbreviated key, an abbreviated key with a tie breaker, or a
    /// comparator the library cannot abbreviate.
    enum SortVariant: CaseIterable, Sendable {
        case score, scoreThenTitle, scoreComparator
    }

    @Test("every sort variant agrees with the reference model and the contract", arguments: SortVariant.allCases)
    func sortVariants(variant: SortVariant) async throws {
        try await runRandomBatches(seed: 21, sectioned: true, filtered: false, variant: variant)
    }

    @Test(
        "random batches agree with the reference model and the contract",
        arguments: [
            (seed: UInt64(1), sectioned: true, filtered: false),
            (seed: 2, sectioned: true, filtered: true),
            (seed: 3, sectioned: false, filtered: false),
            (seed: 4, sectioned: false, filtered: true),
            (seed: 5, sectioned: true, filtered: false),
            (seed: 6, sectioned: true, filtered: true),
        ])
    func randomBatches(seed: UInt64, sectioned: Bool, filtered: Bool) async throws {
        try await runRandomBatches(seed: seed, sectioned: sectioned, filtered: filtered, variant: .score)
    }

    private func runRandomBatches(seed: UInt64, sectioned: Bool, filtered: Bool, variant: SortVariant) async throws {
        let isIncluded: @Sendable (Item) -> Bool = { item in !filtered || item.score != 7 }
        var workload = Workload(seed: seed, idSpace: 120)
        let store = FakeStore(workload.fetchResult(count: 60))
        let controller = Self.controller(store, sectioned: sectioned, isIncluded: isIncluded, variant: variant)
        var model = ReferenceModel(isIncluded: isIncluded, sectioned: sectioned)
        model.sortsByTitleToo = variant == .scoreThenTitle
        var old = SnapshotModel(controller.snapshot)

        for step in 0..<1500 {
            let changes: ChangeSet<Item>
            if step % 250 == 0 {
                // A refetch with some of everything changed, every so often.
                store.items =
                    step == 0
                    ? store.items
                    : Array(model.snapshot.sections.flatMap(\.items).shuffled(using: &workload.random).prefix(50))
                        + workload.fetchResult(count: 20)
                changes = try await controller.performFetch()
                model.fetch(store.items)
            } else {
                let batch = workload.batch(knownItems: Array(controller.fetchedObjects))
                changes = controller.apply(batch)
                batch.forEach { model.apply($0) }
            }
            controller.snapshot._checkInvariants()
            let new = SnapshotModel(controller.snapshot)
            #expect(new == model.snapshot, "seed \(seed) step \(step)")
            expectContract(changes, from: old, to: new)
            if new != model.snapshot { return }
            old = new
        }
    }

    private static func controller(
        _ store: FakeStore,
        sectioned: Bool,
        isIncluded: @escaping @Sendable (Item) -> Bool,
        variant: SortVariant
    ) -> FetchedResultsController<Item> {
        let sectionNameKeyPath: (KeyPath<Item, String> & Sendable)? = sectioned ? \Item.section : nil
        switch variant {
        case .score:
            return .make(store, sectioned: sectioned, isIncluded: isIncluded)
        case .scoreThenTitle:
            return .make(
                store, sectioned: sectioned,
                sortDescriptors: [SortDescriptor(\Item.score), SortDescriptor(\Item.title)], isIncluded: isIncluded)
        case .scoreComparator:
            return FetchedResultsController(
                definition: store.definition(isIncluded: isIncluded),
                sortComparator: KeyPathComparator(\Item.score),
                sectionNameKeyPath: sectionNameKeyPath
            )
        }
    }

    @Test("a single update moves only the updated entity", arguments: [UInt64(11), 12, 13])
    func singleUpdateMovesOnlyItsEntity(seed: UInt64) async throws {
        var workload = Workload(seed: seed, idSpace: 80)
        let controller = FetchedResultsController.make(FakeStore(workload.fetchResult(count: 80)))
        try await controller.performFetch()
        for _ in 0..<500 {
            let old = SnapshotModel(controller.snapshot)
            let target = controller.fetchedObjects.randomElement(using: &workload.random)!
            let changes = controller.apply(.updated(workload.variation(of: target)))
            expectContract(changes, from: old, to: SnapshotModel(controller.snapshot))
            #expect(changes.movedItemIDs.allSatisfy { $0 == target.id }, "\(changes) moves others than #\(target.id)")
        }
    }

    /// Single events take a path of their own; a batch of the same event plus a no-op (the delete of an id
    /// never used) takes the batch diff. Both must report exactly the same change set.
    @Test("a single event reports what the batch diff reports", arguments: [UInt64(31), 32, 33])
    func singleEventMatchesTheBatchDiff(seed: UInt64) async throws {
        var workload = Workload(seed: seed, idSpace: 40)
        let store = FakeStore(workload.fetchResult(count: 30))
        let isIncluded: @Sendable (Item) -> Bool = { $0.score != 7 }
        let single = FetchedResultsController.make(store, isIncluded: isIncluded)
        let batched = FetchedResultsController.make(store, isIncluded: isIncluded)
        try await single.performFetch()
        try await batched.performFetch()
        for step in 0..<2000 {
            let event = workload.event(knownItems: Array(single.fetchedObjects))
            let old = SnapshotModel(single.snapshot)
            let changes = single.apply(event)
            #expect(changes == batched.apply([event, .deleted(-1)]), "seed \(seed) step \(step): \(event)")
            expectContract(changes, from: old, to: SnapshotModel(single.snapshot))
        }
        #expect(SnapshotModel(single.snapshot) == SnapshotModel(batched.snapshot))
    }

    /// Every way to move one entity in every list of up to 12: exactly that entity moves, or nothing.
    @Test("every single move in small lists", arguments: 1..<13)
    func everySingleMove(count: Int) async throws {
        for from in 0..<count {
            for to in 0..<count {
                let items = (0..<count).map { Item($0, score: $0 * 10) }
                let controller = FetchedResultsController.make(FakeStore(items))
                try await controller.performFetch()
                let old = SnapshotModel(controller.snapshot)
                // Scores are multiples of ten; land just before (or after) the target position.
                let score = to < from ? to * 10 - 5 : to * 10 + 5
                let changes = controller.apply(.updated(Item(from, score: score)))
                expectContract(changes, from: old, to: SnapshotModel(controller.snapshot))
                #expect(changes.movedItemIDs == (from == to ? [] : [from]))
                #expect(controller.indexPath(for: Item(from)) == IndexPath(item: to, section: 0))
            }
        }
    }

    /// A batch that repositions most of a section: the fewest moves may be the untouched entities.
    @Test("untouched entities move when that is fewer moves")
    func untouchedEntitiesMoveWhenFewer() async throws {
        let items = (0..<6).map { Item($0, score: $0 * 10) }
        let controller = FetchedResultsController.make(FakeStore(items))
        try await controller.performFetch()
        let old = SnapshotModel(controller.snapshot)
        // Entities 1...5 all get scores below entity 0's: one move (entity 0) is enough.
        let changes = controller.apply((1..<6).map { .updated(Item($0, score: $0 - 10)) })
        expectContract(changes, from: old, to: SnapshotModel(controller.snapshot))
        #expect(changes.movedItemIDs == [0])
        #expect(
            changes.movedItems == [ItemMove(from: IndexPath(item: 0, section: 0), to: IndexPath(item: 5, section: 0))])
    }
}
