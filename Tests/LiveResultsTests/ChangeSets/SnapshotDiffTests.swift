import Foundation
import LiveResultsTesting
import Testing

@testable import LiveResults

/// Refetches, resorts and events queued during a fetch, driven on the results core and checked against
/// the reference model and the change-set contract: every shape of difference the whole-snapshot diff
/// and the bulk build have a path for.
@Suite("Snapshot diff against the reference model")
struct SnapshotDiffTests {
    /// How a fetch result differs from the one before.
    enum Shape: CaseIterable {
        /// Some entities kept (some changed), some dropped, some new, in a new fetch order.
        case mixed
        /// The same entities in reverse fetch order, their scores reversed: everything reorders.
        case reversed
        /// Entities whose ids were never seen.
        case allNew
        /// Ids repeated within the result.
        case duplicated
        /// Sections of other names: sections vanish and appear.
        case otherSections
        /// The very same result.
        case same
        /// Nothing.
        case empty
    }

    enum SortVariant: CaseIterable {
        case score, scoreThenTitle, scoreComparator
    }

    struct Workload {
        var random: SeededGenerator
        var nextNewID = 1000
        var sections = ["a", "b", "c", "é", "日本"]

        init(seed: UInt64) {
            random = SeededGenerator(seed: seed)
        }

        mutating func item(_ id: Int) -> Item {
            Item(
                id, section: sections.randomElement(using: &random)!, score: Int.random(in: 0..<12, using: &random),
                title: ["x", "y", "z"].randomElement(using: &random)!)
        }

        mutating func newItems(_ count: Int) -> [Item] {
            defer { nextNewID += count }
            return (nextNewID..<nextNewID + count).map { item($0) }
        }

        mutating func result(_ shape: Shape, after previous: [Item]) -> [Item] {
            switch shape {
            case .mixed:
                var kept = previous.filter { _ in Int.random(in: 0..<10, using: &random) > 0 }
                for index in kept.indices where Int.random(in: 0..<6, using: &random) == 0 {
                    switch Int.random(in: 0..<3, using: &random) {
                    case 0: kept[index].score = Int.random(in: 0..<12, using: &random)
                    case 1: kept[index].title = ["x", "y", "z"].randomElement(using: &random)!
                    default: kept[index].section = sections.randomElement(using: &random)!
                    }
                }
                let result = kept + newItems(Int.random(in: 0..<40, using: &random))
                return Bool.random(using: &random) ? result.shuffled(using: &random) : result
            case .reversed:
                return previous.reversed().map { item in
                    var item = item
                    item.score = 11 - item.score
                    return item
                }
            case .allNew:
                return newItems(Int.random(in: 1..<300, using: &random))
            case .duplicated:
                let base = previous.isEmpty ? newItems(50) : previous
                return (0..<base.count + 30).map { _ in
                    var item = base.randomElement(using: &random)!
                    if Bool.random(using: &random) { item.title = "dup" }
                    return item
                }
            case .otherSections:
                sections = Bool.random(using: &random) ? ["b", "d", "f"] : ["a", "b", "c", "é", "日本", "z"]
                return previous.map { item in
                    var item = item
                    if Int.random(in: 0..<3, using: &random) > 0 {
                        item.section = sections.randomElement(using: &random)!
                    }
                    return item
                } + newItems(10)
            case .same:
                return previous
            case .empty:
                return []
            }
        }

        mutating func events(knownIDs: [Int]) -> [EntityEvent<Item>] {
            (0..<Int.random(in: 0..<8, using: &random)).map { _ in
                let id =
                    knownIDs.isEmpty || Bool.random(using: &random)
                    ? Int.random(in: 0..<1100, using: &random) : knownIDs.randomElement(using: &random)!
                switch Int.random(in: 0..<3, using: &random) {
                case 0: return .inserted(item(id))
                case 1: return .updated(item(id))
                default: return .deleted(id)
                }
            }
        }
    }

    static func ordering(_ variant: SortVariant, sectioned: Bool, descending: Bool) -> _EntityOrdering<Item> {
        let rule: _SortRule<Item> =
            switch variant {
            case .score: _EntityOrdering.rule(of: [SortDescriptor(\Item.score)])
            case .scoreThenTitle: _EntityOrdering.rule(of: [SortDescriptor(\Item.score), SortDescriptor(\Item.title)])
            case .scoreComparator: _SortRule(compare: { KeyPathComparator(\Item.score).compare($0, $1) })
            }
        return _EntityOrdering(
            sectionNameKeyPath: sectioned ? \Item.section : nil, sectionOrder: descending ? .descending : .ascending,
            rule: rule)
    }

    static func snapshot(_ core: _ResultsCore<Item>) -> SnapshotModel<Item> {
        SnapshotModel(FetchedResultsSnapshot(_storage: core.storage))
    }

    static let configurations: [(seed: UInt64, variant: SortVariant, sectioned: Bool, descending: Bool)] = [
        (1, .score, true, false), (2, .scoreThenTitle, true, false), (3, .scoreComparator, true, false),
        (4, .score, false, false), (5, .score, true, true), (6, .scoreThenTitle, true, true),
        (7, .scoreComparator, false, false),
    ]

    @Test("refetches of every shape, some with events during the fetch", arguments: configurations)
    func refetches(seed: UInt64, variant: SortVariant, sectioned: Bool, descending: Bool) {
        let filtered = seed.isMultiple(of: 2)
        let isIncluded: @Sendable (Item) -> Bool = { !filtered || $0.score != 7 }
        var workload = Workload(seed: seed)
        var core = _ResultsCore(
            ordering: Self.ordering(variant, sectioned: sectioned, descending: descending), isIncluded: isIncluded)
        var model = ReferenceModel(isIncluded: isIncluded, sectioned: sectioned, descendingSections: descending)
        model.sortsByTitleToo = variant == .scoreThenTitle
        var previous = workload.newItems(200)
        for step in 0..<300 {
            let shape = Shape.allCases.randomElement(using: &workload.random)!
            let fetched = workload.result(shape, after: previous)
            let events =
                Int.random(in: 0..<3, using: &workload.random) == 0
                ? workload.events(knownIDs: fetched.map(\.id)) : []
            let old = Self.snapshot(core)
            let (changes, duplicateIDs) = core.replaceAll(with: fetched, thenReplaying: events)
            model.fetch(fetched)
            events.forEach { model.apply($0) }
            core.storage._checkInvariants()
            let new = Self.snapshot(core)
            #expect(new == model.snapshot, "seed \(seed) step \(step) \(shape)")
            expectContract(changes, from: old, to: new)
            var seen = Set<Int>()
            #expect(duplicateIDs == fetched.map(\.id).filter { !seen.insert($0).inserted })
            if new != model.snapshot { return }
            previous = shape == .empty && Bool.random(using: &workload.random) ? workload.newItems(100) : fetched
        }
    }

    @Test("resorts report minimal moves and keep insertion order for ties", arguments: configurations)
    func resorts(seed: UInt64, variant: SortVariant, sectioned: Bool, descending: Bool) {
        var workload = Workload(seed: seed)
        let ordering = Self.ordering(variant, sectioned: sectioned, descending: descending)
        var core = _ResultsCore(ordering: ordering, isIncluded: { _ in true })
        var model = ReferenceModel(sectioned: sectioned, descendingSections: descending)
        model.sortsByTitleToo = variant == .scoreThenTitle
        let fetched = workload.newItems(150) + workload.result(.duplicated, after: workload.newItems(30))
        _ = core.replaceAll(with: fetched)
        model.fetch(fetched)
        let rules: [_SortRule<Item>] = [
            _EntityOrdering.rule(of: [SortDescriptor(\Item.title)]),
            _EntityOrdering.rule(of: [SortDescriptor(\Item.title, order: .reverse), SortDescriptor(\Item.score)]),
            _SortRule(compare: { KeyPathComparator(\Item.title).compare($0, $1) }),
            _EntityOrdering.rule(of: [SortDescriptor(\Item.id, order: .reverse)]),
            ordering.rule,
        ]
        for step in 0..<20 {
            let events = workload.events(knownIDs: fetched.map(\.id))
            _ = core.apply(events)
            events.forEach { model.apply($0) }
            for rule in rules {
                let old = Self.snapshot(core)
                let changes = core.resort(by: rule)
                core.storage._checkInvariants()
                expectContract(changes, from: old, to: Self.snapshot(core))
                #expect(changes.insertedItems.isEmpty && changes.deletedItems.isEmpty && changes.updatedItems.isEmpty)
            }
            #expect(Self.snapshot(core) == model.snapshot, "seed \(seed) step \(step)")
        }
    }

    @Test("a refetch that reverses a long list moves all but one entity of each section")
    func reversal() {
        var core = _ResultsCore(ordering: Self.ordering(.score, sectioned: false, descending: false)) { _ in true }
        let items = (0..<1000).map { Item($0, score: $0) }
        _ = core.replaceAll(with: items)
        let old = Self.snapshot(core)
        let changes = core.replaceAll(with: items.map { Item($0.id, score: -1 - $0.score) }).changes
        expectContract(changes, from: old, to: Self.snapshot(core))
        #expect(changes.movedItems.count == 999)
        #expect(changes.updatedItems.count == 1000)
    }

    @Test("a refetch with one entity rescored moves that entity only, however far it goes")
    func oneRescored() {
        var core = _ResultsCore(ordering: Self.ordering(.score, sectioned: true, descending: false)) { _ in true }
        var items = (0..<2000).map { Item($0, section: ["a", "b"][$0 % 2], score: $0) }
        _ = core.replaceAll(with: items)
        for target in [0, 1, 999, 1998, 1999] {
            let old = Self.snapshot(core)
            items[target].score = items[target].score < 1000 ? 5000 : -5000
            let changes = core.replaceAll(with: items).changes
            expectContract(changes, from: old, to: Self.snapshot(core))
            #expect(changes.movedItemIDs == [target])
            #expect(changes.updatedItemIDs == [target])
        }
    }

    @Test("refetches pair entities whose ids have equal hashes")
    func collidingIDs() {
        var random = SeededGenerator(seed: 5)
        let ordering = _EntityOrdering<CollidingItem>(
            sectionNameKeyPath: nil, sectionOrder: .ascending,
            rule: _EntityOrdering.rule(of: [SortDescriptor(\CollidingItem.score)]))
        var core = _ResultsCore(ordering: ordering) { _ in true }
        var previous: [CollidingItem] = []
        for step in 0..<60 {
            let fetched = (0..<400).filter { _ in Bool.random(using: &random) }.map { value in
                CollidingItem(id: CollidingID(value: value), score: Int.random(in: 0..<50, using: &random))
            }.shuffled(using: &random)
            let old = SnapshotModel(FetchedResultsSnapshot(_storage: core.storage))
            let changes = core.replaceAll(with: fetched).changes
            let new = SnapshotModel(FetchedResultsSnapshot(_storage: core.storage))
            let expected = fetched.enumerated().sorted { ($0.element.score, $0.offset) < ($1.element.score, $1.offset) }
            #expect(new.sections.flatMap(\.items) == expected.map(\.element), "step \(step)")
            expectContract(changes, from: old, to: new)
            let kept = Dictionary(uniqueKeysWithValues: previous.map { ($0.id, $0) })
            #expect(
                Set(changes.updatedItemIDs)
                    == Set(fetched.filter { kept[$0.id] != nil && kept[$0.id] != $0 }.map(\.id)), "step \(step)")
            previous = fetched
        }
    }

    @Test("fetched ids repeat: the first occurrence wins, even when the inclusion rule drops it")
    func duplicatesKeepTheFirstOccurrence() {
        let ordering = Self.ordering(.score, sectioned: false, descending: false)
        var core = _ResultsCore(ordering: ordering) { $0.title != "excluded" }
        let fetched = (0..<5000).map { Item($0 % 1500, score: $0, title: $0 == 7 ? "excluded" : "\($0)") }
        let (changes, duplicateIDs) = core.replaceAll(with: fetched)
        #expect(duplicateIDs == (1500..<5000).map { $0 % 1500 })
        #expect(core.storage.count == 1499)
        #expect(core.storage.stored(forID: 7) == nil)
        #expect(core.storage.stored(forID: 8)?.entity.title == "8")
        #expect(changes.insertedItemIDs == (0..<1500).filter { $0 != 7 })
    }
}

/// An id with seven hash values among all its values: whole-hash collisions everywhere.
private struct CollidingID: Hashable, Sendable {
    var value: Int

    func hash(into hasher: inout Hasher) { hasher.combine(value % 7) }
}

private struct CollidingItem: FetchableEntity {
    var id: CollidingID
    var score: Int
}
