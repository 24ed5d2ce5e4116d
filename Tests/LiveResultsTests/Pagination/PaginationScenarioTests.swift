import Foundation
import LiveResults
import Testing

/// Pages joining the live results (the *LoadingPages* article), with FetchRequests' pagination scenarios restated.
/// Every change set is checked against the contract between the snapshots before and after it.
@Suite("Pagination scenarios", .timeLimit(.minutes(5)))
struct PaginationScenarioTests {
    /// A controller over a server, and the snapshot it showed last.
    struct Fixture {
        let server: PageServer
        let log = EventHarness.DiagnosticLog()
        let controller: FetchedResultsController<Item>
        let recorder = ChangeRecorder<Item>()
        var model: SnapshotModel<Item>

        init(
            _ items: [Item], pageSize: Int, start: Int = 0, sectioned: Bool = false,
            isIncluded: @escaping @Sendable (Item) -> Bool = { _ in true }
        ) {
            server = PageServer(items, pageSize: pageSize, start: start)
            controller = server.controller(sectioned: sectioned, isIncluded: isIncluded, diagnostics: log.handler)
            controller.delegate = recorder
            model = SnapshotModel(controller.snapshot)
        }

        var ids: [Int] { controller.fetchedObjects.map(\.id) }

        mutating func check(_ changes: ChangeSet<Item>, sourceLocation: SourceLocation = #_sourceLocation) {
            let new = SnapshotModel(controller.snapshot)
            expectContract(changes, from: model, to: new, sourceLocation: sourceLocation)
            model = new
        }

        @discardableResult
        mutating func fetch(sourceLocation: SourceLocation = #_sourceLocation) async throws -> ChangeSet<Item> {
            let changes = try await controller.performFetch()
            check(changes, sourceLocation: sourceLocation)
            return changes
        }

        @discardableResult
        mutating func next(sourceLocation: SourceLocation = #_sourceLocation) async throws -> ChangeSet<Item> {
            let changes = try await controller.loadNextPage()
            check(changes, sourceLocation: sourceLocation)
            return changes
        }

        @discardableResult
        mutating func previous(sourceLocation: SourceLocation = #_sourceLocation) async throws -> ChangeSet<Item> {
            let changes = try await controller.loadPreviousPage()
            check(changes, sourceLocation: sourceLocation)
            return changes
        }

        @discardableResult
        mutating func apply(_ events: [EntityEvent<Item>], sourceLocation: SourceLocation = #_sourceLocation)
            -> ChangeSet<Item>
        {
            let changes = controller.apply(events)
            check(changes, sourceLocation: sourceLocation)
            return changes
        }
    }

    // MARK: FetchRequests' scenarios

    @Test func aPageInsertsItsEntitiesAfterEverythingShown() async throws {
        // [a, b, c] + page [d, f]: two inserts, at 3 and 4.
        var fixture = Fixture(items(1...3) + [Item(4, score: 4), Item(6, score: 6)], pageSize: 3)
        try await fixture.fetch()
        #expect(fixture.ids == [1, 2, 3])
        let changes = try await fixture.next()
        #expect(changes.insertedItems == [ip(0, 3), ip(0, 4)])
        #expect(changes.insertedItemIDs == [4, 6])
        #expect(changes.deletedItems.isEmpty && changes.movedItems.isEmpty && changes.updatedItems.isEmpty)
        #expect(fixture.ids == [1, 2, 3, 4, 6])
        #expect(fixture.recorder.changeSets.last == changes, "delivered to the observers as well")
    }

    @Test func paginationDoesNotDisableLiveInserts() async throws {
        var fixture = Fixture(items(1...3) + [Item(4, score: 4), Item(6, score: 6)], pageSize: 3)
        try await fixture.fetch()
        try await fixture.next()
        let changes = fixture.apply([.inserted(Item(5, score: 5))])
        #expect(changes.insertedItems == [ip(0, 4)], "e lands between d and f")
        #expect(fixture.ids == [1, 2, 3, 4, 5, 6])
    }

    @Test func aPageWithEntitiesReportsThemAndAnEmptyPageReportsNothing() async throws {
        var fixture = Fixture(items(1...3), pageSize: 2)
        fixture.server.answer(2, with: Page([Item(3, score: 3)], next: 4))
        fixture.server.answer(4, with: Page([], next: nil))
        try await fixture.fetch()
        #expect(try await !fixture.next().isEmpty)
        #expect(fixture.controller.hasNextPage)
        #expect(try await fixture.next().isEmpty)
        #expect(!fixture.controller.hasNextPage)
        #expect(fixture.controller.pagination.pagesLoaded == 3)
    }

    // MARK: Cursors and state

    @Test func pagesFollowTheirCursorsUntilThereIsNoNext() async throws {
        var fixture = Fixture(items(1...7), pageSize: 3)
        #expect(!fixture.controller.hasNextPage, "nothing fetched yet")
        try await fixture.fetch()
        #expect(fixture.controller.hasNextPage)
        try await fixture.next()
        try await fixture.next()
        #expect(fixture.ids == Array(1...7))
        #expect(!fixture.controller.hasNextPage)
        #expect(try await fixture.next().isEmpty, "no next page: no request")
        #expect(fixture.server.requests == [0, 3, 6])
        let pagination = fixture.controller.pagination
        #expect(pagination.pagesLoaded == 3)
        #expect(!pagination.isLoadingNextPage && !pagination.isLoadingPreviousPage)
        #expect(pagination.lastError == nil)
    }

    @Test func previousPagesGrowTheFeedAtTheTop() async throws {
        // The feed opens at offset 4: [5, 6], and has [1...4] before it.
        var fixture = Fixture(items(1...6), pageSize: 2, start: 4)
        try await fixture.fetch()
        #expect(fixture.ids == [5, 6])
        #expect(fixture.controller.hasPreviousPage && !fixture.controller.hasNextPage)
        let changes = try await fixture.previous()
        #expect(changes.insertedItemIDs == [3, 4])
        #expect(changes.insertedItems == [ip(0, 0), ip(0, 1)], "sorted by score, so at the top")
        try await fixture.previous()
        #expect(fixture.ids == Array(1...6))
        #expect(!fixture.controller.hasPreviousPage)
        #expect(try await fixture.previous().isEmpty)
        #expect(fixture.server.requests == [4, 2, 0])
        #expect(fixture.controller.pagination.pagesLoaded == 3)
    }

    @Test func aPlainDefinitionIsOnePageWithNothingAfterIt() async throws {
        var fixture = ScenarioFixture(items(1...3))
        try await fixture.fetch()
        #expect(!fixture.controller.hasNextPage && !fixture.controller.hasPreviousPage)
        #expect(fixture.controller.pagination.pagesLoaded == 1)
        #expect(try await fixture.controller.loadNextPage().isEmpty)
        #expect(try await fixture.controller.loadPreviousPage().isEmpty)
        #expect(fixture.store.calls == 1, "no request")
    }

    @Test func anIDAlreadyShownIsAnUpdateThatKeepsItsInsertionPosition() async throws {
        var fixture = Fixture([Item(1, score: 1), Item(2, score: 1), Item(3, score: 1)], pageSize: 2)
        try await fixture.fetch()
        // Page two repeats item 1 with a new title: equal score, so it keeps its place before 2.
        fixture.server.answer(2, with: Page([Item(3, score: 1), Item(1, score: 1, title: "new")], next: nil))
        let changes = try await fixture.next()
        #expect(changes.insertedItemIDs == [3])
        #expect(changes.updatedItemIDs == [1])
        #expect(changes.movedItems.isEmpty)
        #expect(fixture.ids == [1, 2, 3])
        #expect(fixture.controller.object(withID: 1)?.title == "new")
    }

    @Test func theInclusionRuleAppliesToPages() async throws {
        var fixture = Fixture(items(1...6), pageSize: 3, isIncluded: { $0.id % 2 == 0 })
        try await fixture.fetch()
        #expect(fixture.ids == [2])
        // A page that brings an excluded version of a shown entity removes it.
        fixture.server.answer(3, with: Page([Item(2, score: 2, title: "x")] + items(4...6), next: nil))
        fixture.server.items[1].title = "x"
        let changes = try await fixture.next()
        #expect(fixture.ids == [2, 4, 6])
        #expect(changes.insertedItemIDs == [4, 6] && changes.updatedItemIDs == [2])
    }

    @Test(.tags(.concurrent)) func liveEventsApplyWhileAPageLoads() async throws {
        var fixture = Fixture(items(1...4), pageSize: 2)
        try await fixture.fetch()
        let gate = fixture.server.holdRequests()
        let controller = fixture.controller
        let load = Task { try await controller.loadNextPage() }
        #expect(await fixture.server.started(2))
        #expect(fixture.controller.pagination.isLoadingNextPage)
        fixture.apply([.inserted(Item(10, score: 10)), .deleted(1)])
        #expect(fixture.ids == [2, 10])
        gate.open()
        let changes = try await load.value
        fixture.check(changes)
        #expect(fixture.ids == [2, 3, 4, 10])
        #expect(!fixture.controller.pagination.isLoadingNextPage)
    }

    // MARK: Refetch and reset

    @Test func aRefetchReloadsThePagesShownAsOneChangeSet() async throws {
        var fixture = Fixture(items(1...9), pageSize: 3)
        try await fixture.fetch()
        try await fixture.next()
        fixture.server.items = [Item(20, score: 0)] + items(1...9).filter { $0.id != 2 }
        let deliveriesBefore = fixture.recorder.changeSets.count
        let changes = try await fixture.fetch()
        #expect(fixture.server.requests == [0, 3, 0, 3], "both pages again, from the first cursor")
        #expect(fixture.ids == [20, 1, 3, 4, 5, 6])
        #expect(changes.deletedItemIDs == [2] && changes.insertedItemIDs == [20])
        #expect(fixture.recorder.changeSets.count == deliveriesBefore + 1, "one change set")
        #expect(fixture.controller.pagination.pagesLoaded == 2)
        #expect(fixture.controller.hasNextPage)
    }

    @Test func aRefetchStopsWhereAPageHasNoNextCursor() async throws {
        var fixture = Fixture(items(1...9), pageSize: 3)
        try await fixture.fetch()
        try await fixture.next()
        try await fixture.next()
        fixture.server.items = items(1...4)
        try await fixture.fetch()
        #expect(fixture.server.requests == [0, 3, 6, 0, 3])
        #expect(fixture.ids == [1, 2, 3, 4])
        #expect(fixture.controller.pagination.pagesLoaded == 2)
        #expect(!fixture.controller.hasNextPage)
    }

    @Test func aRefetchReloadsPreviousPagesToo() async throws {
        var fixture = Fixture(items(1...6), pageSize: 2, start: 2)
        try await fixture.fetch()
        try await fixture.previous()
        try await fixture.next()
        #expect(fixture.ids == Array(1...6))
        fixture.server.items[0].title = "changed"
        let changes = try await fixture.fetch()
        #expect(fixture.server.requests == [2, 0, 4, 2, 4, 0])
        #expect(changes.updatedItemIDs == [1] && changes.insertedItems.isEmpty && changes.deletedItems.isEmpty)
        #expect(fixture.controller.pagination.pagesLoaded == 3)
    }

    @Test func anInvalidatedEventReloadsThePages() async throws {
        var fixture = Fixture(items(1...4), pageSize: 2)
        try await fixture.fetch()
        try await fixture.next()
        fixture.server.items[3].title = "changed"
        let changes = fixture.controller.changes
        fixture.controller.apply(.invalidated)
        let refetched = await EventHarness.collect(1, from: changes)
        #expect(refetched.first?.updatedItemIDs == [4])
        #expect(fixture.server.requests == [0, 2, 0, 2])
    }

    @Test func resetForgetsThePages() async throws {
        var fixture = Fixture(items(1...6), pageSize: 2)
        try await fixture.fetch()
        try await fixture.next()
        fixture.controller.reset()
        #expect(fixture.controller.pagination.pagesLoaded == 0)
        #expect(!fixture.controller.hasNextPage)
        #expect(try await fixture.controller.loadNextPage().isEmpty)
        fixture.model = SnapshotModel(fixture.controller.snapshot)
        try await fixture.fetch()
        #expect(fixture.ids == [1, 2], "the first page only")
        #expect(fixture.server.requests == [0, 2, 0])
    }
}
