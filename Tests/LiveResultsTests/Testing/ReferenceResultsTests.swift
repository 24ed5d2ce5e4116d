import Foundation
import LiveResults
import LiveResultsTesting
import Testing

/// `LiveResultsTesting`'s seeded generator and reference model, as a user calls them.
@Suite struct ReferenceResultsTests {
    @Test func theGeneratorIsSplitMix64() {
        // The first outputs of SplitMix64 from seed 0, as its reference implementation prints them.
        var random = SeededRandom(seed: 0)
        #expect(
            [random.next(), random.next(), random.next()] == [
                0xE220_A839_7B1D_CDAF, 0x6E78_9E6A_A1B9_65F4, 0x06C4_5D18_8009_454F,
            ])
        var (first, second) = (SeededRandom(seed: 99), SeededRandom(seed: 99))
        #expect(
            (0..<100).map { _ in Int.random(in: 0..<1000, using: &first) }
                == (0..<100).map { _ in Int.random(in: 0..<1000, using: &second) })
    }

    @Test func sectionsThenSortDescriptorsThenInsertionOrder() {
        var reference = ReferenceResults<Item>(
            sortDescriptors: [SortDescriptor(\.score)], sectionNameKeyPath: \.section, sectionOrder: .descending)
        reference.fetch([
            Item(1, section: "a", score: 2), Item(2, section: "b", score: 1), Item(3, section: "a", score: 2),
        ])
        reference.apply([.inserted(Item(4, section: "a", score: 2)), .inserted(Item(5, section: "a", score: 0))])
        #expect(reference.sections.map(\.description) == ["b: 2", "a: 5,1,3,4"])
        // An update keeps the insertion position: #1 stays before #3 and #4 among the ties.
        reference.apply(.updated(Item(1, section: "a", score: 2, title: "new")))
        #expect(reference.sections.map(\.description) == ["b: 2", "a: 5,1,3,4"])
        reference.resort(using: [SortDescriptor(\.score, order: .reverse)])
        #expect(reference.fetchedObjects.map(\.id) == [2, 1, 3, 4, 5])
    }

    @Test func eventsFollowTheControllersRules() {
        var reference = ReferenceResults<Item>(sortDescriptors: [SortDescriptor(\.score)]) { $0.score >= 0 }
        reference.apply(.inserted(Item(9)))
        #expect(reference.sections.isEmpty && !reference.isFetched, "events before the first fetch are ignored")
        // The first occurrence of a repeated id decides, also when it is left out.
        reference.fetch([Item(1, score: -1), Item(1, score: 1), Item(2, score: 1)])
        #expect(reference.fetchedObjects.map(\.id) == [2])
        #expect(reference.sections.map(\.name) == [""])
        reference.apply([.updated(Item(3, score: 0)), .inserted(Item(2, score: 5)), .deleted(42)])
        #expect(reference.fetchedObjects == [Item(3, score: 0), Item(2, score: 5)])
        reference.apply(.updated(Item(3, score: -1)))
        #expect(reference.fetchedObjects.map(\.id) == [2], "an update that is no longer included removes")
        reference.reset()
        reference.apply(.inserted(Item(4)))
        #expect(reference.count == 0 && reference.sections.isEmpty)
    }

    @Test func theDifferenceNamesWhatDiffers() async throws {
        let controller = FetchedResultsController.make(FakeStore([Item(1, section: "a"), Item(2, section: "b")]))
        try await controller.performFetch()
        var reference = ReferenceResults<Item>(
            sortDescriptors: [SortDescriptor(\.score)], sectionNameKeyPath: \.section)
        reference.fetch([Item(1, section: "a"), Item(2, section: "b")])
        #expect(reference.difference(from: controller.snapshot) == nil)
        reference.apply(.updated(Item(2, section: "b", title: "new")))
        #expect(reference.difference(from: controller.snapshot)?.hasPrefix("the entity at [1, 0]") == true)
        reference.apply(.updated(Item(2, section: "a", score: -1)))
        #expect(reference.difference(from: controller.snapshot)?.hasPrefix("the sections are") == true)
    }

    // MARK: - A controller against the reference, at random

    /// A way to break the reference model, to show that the randomized test catches it.
    enum Mutation: String, CaseIterable, Sendable {
        /// An update takes a new insertion number, as an insert does: ties no longer keep their order.
        case updatesLoseTheirInsertionPosition
        /// The inclusion rule is forgotten.
        case inclusionIgnored
        /// Updates of unknown ids are dropped instead of inserted.
        case unknownUpdatesDropped
    }

    /// Random batches, refetches and resorts on a controller and on a reference; each change set is checked against
    /// the contract. Returns where the controller and the reference first differ, or `nil`.
    func firstDifference(seed: UInt64, steps: Int, mutation: Mutation? = nil) async throws -> String? {
        var random = SeededRandom(seed: seed)
        let isIncluded: @Sendable (Item) -> Bool = { $0.score != 7 }
        func randomItem(_ id: Int) -> Item {
            Item(
                id, section: ["a", "b", "c"].randomElement(using: &random)!,
                score: Int.random(in: 0..<8, using: &random),
                title: ["x", "y"].randomElement(using: &random)!)
        }
        let store = FakeStore((0..<40).map { _ in randomItem(Int.random(in: 0..<60, using: &random)) })
        let controller = FetchedResultsController.make(store, isIncluded: isIncluded)
        let recorder = LiveResultsTesting.ChangeRecorder(controller)
        var referenceIncludes: (Item) -> Bool = isIncluded
        if mutation == .inclusionIgnored { referenceIncludes = { _ in true } }
        var reference = ReferenceResults<Item>(
            sortDescriptors: [SortDescriptor(\.score)], sectionNameKeyPath: \.section, isIncluded: referenceIncludes)
        try await controller.performFetch()
        reference.fetch(store.items)
        for step in 0..<steps {
            let before = controller.snapshot
            let changes: ChangeSet<Item>
            switch Int.random(in: 0..<50, using: &random) {
            case 0:
                store.items = (0..<40).map { _ in randomItem(Int.random(in: 0..<60, using: &random)) }
                changes = try await controller.performFetch()
                reference.fetch(store.items)
            case 1:
                let descriptors = [SortDescriptor(\Item.score, order: .reverse), SortDescriptor(\.title)]
                let chosen = Bool.random(using: &random) ? descriptors : [SortDescriptor(\Item.score)]
                changes = controller.resort(using: chosen)
                reference.resort(using: chosen)
            default:
                let known = Array(controller.fetchedObjects)
                let events: [EntityEvent<Item>] = (0..<Int.random(in: 1...4, using: &random)).map { _ in
                    let id =
                        known.randomElement(using: &random).flatMap { Bool.random(using: &random) ? $0.id : nil }
                        ?? Int.random(in: 0..<60, using: &random)
                    switch Int.random(in: 0..<6, using: &random) {
                    case 0: return .inserted(randomItem(id))
                    case 1: return .deleted(id)
                    default: return .updated(randomItem(id))
                    }
                }
                changes = controller.apply(events)
                for event in events {
                    switch (mutation, event) {
                    case (.updatesLoseTheirInsertionPosition, .updated(let item)):
                        reference.apply([.deleted(item.id), .inserted(item)])
                    case (.unknownUpdatesDropped, .updated(let item))
                    where !reference.fetchedObjects.contains { $0.id == item.id }:
                        break
                    default:
                        reference.apply(event)
                    }
                }
            }
            try ChangeSetContract.verify(changes, from: before, to: controller.snapshot)
            if let difference = reference.difference(from: controller.snapshot) {
                return "seed \(seed) step \(step): \(difference)"
            }
        }
        try recorder.verifyChain()
        #expect(recorder.changeSets.count == recorder.snapshots.count - 1)
        return nil
    }

    @Test("a controller agrees with the reference model at every step", arguments: [UInt64(1), 2, 3, 4])
    func controllerAgreesWithTheReference(seed: UInt64) async throws {
        let difference = try await firstDifference(seed: seed, steps: 1500)
        #expect(difference == nil)
    }

    @Test("a broken reference model fails the randomized test", arguments: Mutation.allCases)
    func aBrokenReferenceIsCaught(mutation: Mutation) async throws {
        let difference = try await firstDifference(seed: 1, steps: 1500, mutation: mutation)
        #expect(difference != nil, "the mutation \(mutation) went unnoticed")
    }
}
