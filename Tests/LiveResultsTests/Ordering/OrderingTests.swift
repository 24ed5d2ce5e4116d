import Foundation
import LiveResults
import Testing

/// The one ordering rule (the *ReadingAndOrdering* article): section order, then the sort descriptors, then insertion
/// order.
@Suite("Ordering", .timeLimit(.minutes(5)))
struct OrderingTests {
    typealias Fixture = ScenarioFixture

    /// One item per section name, fetched in the given order.
    private func loaded(sections names: [String], order: SectionOrder = .ascending) async throws -> Fixture {
        let items = names.enumerated().map { Item($0.offset + 1, section: $0.element) }
        return try await Fixture(items, sectionOrder: order).loaded()
    }

    // MARK: Section order

    struct NamedOrder: Sendable, CustomTestStringConvertible {
        var testDescription: String
        var order: SectionOrder
        var expected: [String]
        /// Where a live insert of section "bb" goes.
        var insertedAt: Int
    }

    static let builtInOrders = [
        NamedOrder(testDescription: "ascending", order: .ascending, expected: ["a", "b", "c"], insertedAt: 2),
        NamedOrder(testDescription: "descending", order: .descending, expected: ["c", "b", "a"], insertedAt: 1),
    ]

    @Test(arguments: builtInOrders)
    func builtInSectionOrder(_ named: NamedOrder) async throws {
        var fixture = try await loaded(sections: ["b", "c", "a"], order: named.order)
        #expect(fixture.names == named.expected)
        let changes = fixture.apply([.inserted(Item(9, section: "bb"))])
        #expect(changes.insertedSections == [named.insertedAt] && changes.insertedSectionNames == ["bb"])
    }

    @Test func customOrderByPriorityRankThenName() async throws {
        let rank = ["high": 0, "medium": 1, "low": 2]
        let order = SectionOrder.custom { rank[$0, default: 3] < rank[$1, default: 3] }
        var fixture = try await loaded(sections: ["low", "zzz", "high", "aaa", "medium"], order: order)
        #expect(fixture.names == ["high", "medium", "low", "aaa", "zzz"])
        let changes = fixture.apply([.inserted(Item(9, section: "mmm")), .inserted(Item(10, section: "medium"))])
        #expect(fixture.names == ["high", "medium", "low", "aaa", "mmm", "zzz"])
        #expect(changes.insertedSections == [4] && changes.insertedItems == [ip(1, 1), ip(4, 0)])
    }

    /// A comparator that ignores case ties "a" and "A"; the library breaks the tie by name, so the order
    /// is the same whatever the fetch order.
    @Test(arguments: [["b", "A", "B", "a"], ["a", "B", "A", "b"]])
    func customOrderThatTiesDistinctNamesIsTotalAndDeterministic(fetchOrder: [String]) async throws {
        let order = SectionOrder.custom { $0.lowercased() < $1.lowercased() }
        var fixture = try await loaded(sections: fetchOrder, order: order)
        #expect(fixture.names == ["A", "a", "B", "b"])
        #expect(fixture.controller.sections.map(\.numberOfObjects) == [1, 1, 1, 1])
        let upperB = fixture.controller.sections[2].objects[0].id
        fixture.apply([.deleted(upperB)])
        let changes = fixture.apply([.inserted(Item(9, section: "B"))])
        #expect(changes.insertedSections == [2])
        #expect(fixture.names == ["A", "a", "B", "b"])
    }

    // MARK: Non-ASCII names

    static let unicodeNames = ["日本", "été", "Ärger", "zoo", "Zebra", "🍎", "apple"]

    /// Swift's `String` order: Unicode scalars of the canonical form, so uppercase ASCII, lowercase
    /// ASCII, Latin-1 letters, CJK, then emoji.
    @Test func nonASCIISectionNamesSortByUnicodeScalars() async throws {
        let fixture = try await loaded(sections: Self.unicodeNames)
        #expect(fixture.names == ["Zebra", "apple", "zoo", "Ärger", "été", "日本", "🍎"])
        #expect(fixture.names == Self.unicodeNames.sorted())
    }

    @Test func nonASCIISectionNamesInDescendingOrder() async throws {
        let fixture = try await loaded(sections: Self.unicodeNames, order: .descending)
        #expect(fixture.names == ["🍎", "日本", "été", "Ärger", "zoo", "apple", "Zebra"])
    }

    /// "e" + combining acute and precomposed "é" are equal as Swift strings, so they name one section;
    /// plain "e" is another.
    @Test func canonicallyEquivalentNamesShareOneSection() async throws {
        let (combining, precomposed) = ("e\u{301}", "\u{e9}")
        var fixture = try await Fixture([
            Item(1, section: combining), Item(2, section: precomposed), Item(3, section: "e"),
        ]).loaded()
        #expect(fixture.controller.sections.map(\.numberOfObjects) == [1, 2])
        #expect(fixture.ids == [[3], [1, 2]])
        #expect(fixture.names[1] == combining && fixture.names[1] == precomposed)
        let changes = fixture.apply([.inserted(Item(4, section: precomposed)), .inserted(Item(5, section: combining))])
        #expect(changes.insertedSections.isEmpty)
        #expect(changes.insertedItems == [ip(1, 2), ip(1, 3)])
        #expect(fixture.controller.indexPath(for: Item(5)) == ip(1, 3))
    }

    @Test func updateToACanonicallyEquivalentNameIsNoChange() async throws {
        var fixture = try await Fixture([Item(1, section: "e\u{301}"), Item(2, section: "e\u{301}", score: 5)]).loaded()
        let changes = fixture.apply([.updated(Item(1, section: "\u{e9}"))])
        #expect(changes.isEmpty)
        #expect(fixture.ids == [[1, 2]])
    }

    // MARK: Ties

    /// Two sorts under which every item ties.
    enum TyingSort: String, CaseIterable, Sendable {
        case noDescriptors, constantKey

        var descriptors: [SortDescriptor<Item>] {
            switch self {
            case .noDescriptors: []
            case .constantKey: [SortDescriptor(\Item.section)]
            }
        }
    }

    private func loaded(tying sort: TyingSort) async throws -> Fixture {
        let items = [Item(3, score: 9), Item(1, score: 2), Item(2, score: 5)]
        return try await Fixture(items, sectioned: false, sortDescriptors: sort.descriptors).loaded()
    }

    @Test(arguments: TyingSort.allCases)
    func tiesEverywhereGiveFetchOrder(_ sort: TyingSort) async throws {
        let fixture = try await loaded(tying: sort)
        #expect(fixture.ids == [[3, 1, 2]])
    }

    @Test(arguments: TyingSort.allCases)
    func tiesEverywhereInsertLast(_ sort: TyingSort) async throws {
        var fixture = try await loaded(tying: sort)
        let changes = fixture.apply([.inserted(Item(0, score: -100)), .inserted(Item(7))])
        #expect(fixture.ids == [[3, 1, 2, 0, 7]])
        #expect(changes.insertedItems == [ip(0, 3), ip(0, 4)] && changes.insertedItemIDs == [0, 7])
    }

    @Test(arguments: TyingSort.allCases)
    func tiesEverywhereUpdateKeepsItsPlace(_ sort: TyingSort) async throws {
        var fixture = try await loaded(tying: sort)
        let changes = fixture.apply([.updated(Item(3, score: -100, title: "changed"))])
        #expect(fixture.ids == [[3, 1, 2]])
        #expect(changes.updatedItems == [ip(0, 0)] && changes.movedItems.isEmpty)
    }

    /// An update that lands on a tie keeps its insertion position: 1 (fetched before 2) goes before 2,
    /// and 4 before 5, where a new arrival would go after them.
    @Test(arguments: [
        (Item(1, section: "a", score: 20), [[1, 2, 3], [4], [5, 6]]),
        (Item(4, section: "c", score: 10), [[1, 2, 3], [4, 5, 6]]),
    ])
    func updateLandingOnATieKeepsItsInsertionPosition(_ update: Item, expected: [[Int]]) async throws {
        var fixture = try await Fixture(Fixture.sample).loaded()
        let changes = fixture.apply([.updated(update)])
        #expect(fixture.ids == expected)
        #expect(changes.updatedItemIDs == [update.id])
    }

    // MARK: Sort descriptors

    @Test func multipleSortDescriptorsApplyInOrder() async throws {
        let items = [
            Item(1, score: 10, title: "b"), Item(2, score: 20, title: "z"), Item(3, score: 10, title: "a"),
            Item(4, score: 20, title: "c"),
        ]
        var fixture = try await Fixture(
            items,
            sectioned: false,
            sortDescriptors: [SortDescriptor(\Item.score, order: .reverse), SortDescriptor(\Item.title)]
        ).loaded()
        #expect(fixture.ids == [[4, 2, 3, 1]])
        let changes = fixture.apply([.updated(Item(1, score: 10, title: "0"))])
        #expect(fixture.ids == [[4, 2, 1, 3]])
        #expect(changes.movedItems == [ItemMove(from: ip(0, 3), to: ip(0, 2))] && changes.movedItemIDs == [1])
    }

    /// Reverse order reverses the sort key, not the insertion-order tie break.
    @Test func reverseOrderKeepsTiesInInsertionOrder() async throws {
        let items = [Item(1, score: 5), Item(2, score: 9), Item(3, score: 5), Item(4, score: 1)]
        var fixture = try await Fixture(
            items, sectioned: false, sortDescriptors: [SortDescriptor(\Item.score, order: .reverse)]
        ).loaded()
        #expect(fixture.ids == [[2, 1, 3, 4]])
        let changes = fixture.apply([.inserted(Item(5, score: 5))])
        #expect(fixture.ids == [[2, 1, 3, 5, 4]])
        #expect(changes.insertedItems == [ip(0, 3)])
    }

    @Test func sectionOrderComesBeforeTheSortDescriptors() async throws {
        let items = [
            Item(1, section: "b", score: 1), Item(2, section: "a", score: 100), Item(3, section: "b", score: 0),
        ]
        let fixture = try await Fixture(items).loaded()
        #expect(fixture.ids == [[2], [3, 1]])
        #expect(fixture.controller.fetchedObjects.map(\.id) == [2, 3, 1])
    }
}
