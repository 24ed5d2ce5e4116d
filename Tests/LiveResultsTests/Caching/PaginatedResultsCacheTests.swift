import Foundation
import LiveResults
import Testing

/// Persisted results of paginated definitions: the pages loaded and their cursors are saved, a later
/// launch shows them all and continues from their cursors, and a refresh reloads as many pages.
@Suite("Persisted results: pages", .timeLimit(.minutes(5)))
struct PaginatedResultsCacheTests {
    static func definition(
        _ server: PageServer, _ scenario: CacheScenario, _ usage: ResultsCachePolicy.Usage
    ) -> FetchDefinition<Item> {
        FetchDefinition(
            firstPage: server.start, pageRequest: { try await server.page(at: $0) },
            cache: scenario.policy(usage))
    }

    static func controller(
        _ server: PageServer, _ scenario: CacheScenario, _ usage: ResultsCachePolicy.Usage
    ) -> FetchedResultsController<Item> {
        FetchedResultsController(
            definition: definition(server, scenario, usage), sortDescriptors: [SortDescriptor(\.score)])
    }

    @Test("the pages loaded and their cursors are saved; a later launch shows them and continues")
    func pagesAndCursors() async throws {
        let scenario = CacheScenario([])
        let server = PageServer(items(1...20), pageSize: 5)
        let first = Self.controller(server, scenario, .insteadOfFetching)
        try await first.performFetch()
        try await first.loadNextPage()
        try await first.loadNextPage()
        #expect(server.requests == [0, 5, 10])

        let second = Self.controller(server, scenario, .insteadOfFetching)
        let changes = try await second.performFetch()
        #expect(server.requests == [0, 5, 10], "no request")
        #expect(second.resultsOrigin == .cache(savedAt: scenario.now))
        #expect(second.fetchedObjects.map(\.id) == Array(1...15))
        #expect(changes.insertedItems.count == 15)
        #expect(second.pagination.pagesLoaded == 3 && second.hasNextPage && !second.hasPreviousPage)
        try await second.loadNextPage()
        #expect(server.requests == [0, 5, 10, 15], "from the saved cursor")
        #expect(second.fetchedObjects.map(\.id) == Array(1...20))
        #expect(!second.hasNextPage)

        // That page was saved too: a third launch shows all four pages, with no next page.
        let third = Self.controller(server, scenario, .insteadOfFetching)
        try await third.performFetch()
        #expect(third.fetchedObjects.map(\.id) == Array(1...20))
        #expect(third.pagination.pagesLoaded == 4 && !third.hasNextPage)
    }

    @Test("thenFetch: the saved pages at once, then a refresh that reloads as many pages")
    func refreshReloadsThePagesShown() async throws {
        let scenario = CacheScenario([])
        let server = PageServer(items(1...20), pageSize: 5)
        let first = Self.controller(server, scenario, .thenFetch)
        try await first.performFetch()
        try await first.loadNextPage()
        server.items = items(1...20).map { Item($0.id, score: $0.id, title: "new") }

        let second = Self.controller(server, scenario, .thenFetch)
        let recorder = EventHarness.ChainRecorder<Item>(initial: SnapshotModel(sections: []))
        second.delegate = recorder
        try await second.performFetch()
        #expect(server.requests == [0, 5, 0, 5], "two pages reloaded")
        #expect(second.resultsOrigin == .request)
        #expect(second.fetchedObjects.map(\.title) == Array(repeating: "new", count: 10))
        recorder.expectChain()
        #expect(recorder.changeSets.count == 2)
        #expect(recorder.changeSets[1].updatedItemIDs.count == 10 && recorder.changeSets[1].insertedItems.isEmpty)
    }

    @Test("ready-made kinds: keyed pages keep an optional cursor exactly, numbered pages their number")
    func readyMadeKinds() async throws {
        let scenario = CacheScenario([])
        let all = items(1...9)
        let requested = Locked<[Int?]>([])
        let keyed = FetchDefinition<Item>.keyedPages(
            by: \.score, limit: 3, cache: scenario.policy(.insteadOfFetching, key: "keyed")
        ) { after in
            requested.withLock { $0.append(after) }
            return Array(all.filter { $0.score > (after ?? 0) }.prefix(3))
        }
        let first = FetchedResultsController(definition: keyed, sortDescriptors: [SortDescriptor(\.score)])
        try await first.performFetch()
        try await first.loadNextPage()
        let second = FetchedResultsController(definition: keyed, sortDescriptors: [SortDescriptor(\.score)])
        try await second.performFetch()
        #expect(second.fetchedObjects.map(\.id) == Array(1...6))
        try await second.loadNextPage()
        #expect(requested.withLock { $0 } == [nil, 3, 6])
        #expect(second.fetchedObjects.map(\.id) == Array(1...9))

        let pages = Locked<[Int]>([])
        let numbered = FetchDefinition<Item>.numberedPages(
            from: 1, pageSize: 4, cache: scenario.policy(.insteadOfFetching, key: "numbered")
        ) { page in
            pages.withLock { $0.append(page) }
            return Array(all.dropFirst((page - 1) * 4).prefix(4))
        }
        try await FetchedResultsController(definition: numbered).performFetch()
        let again = FetchedResultsController(definition: numbered)
        try await again.performFetch()
        try await again.loadNextPage()
        #expect(pages.withLock { $0 } == [1, 2])
        #expect(again.fetchedObjects.count == 8)
    }

    /// A store is outside the library's hands (a file anyone with access may edit, a custom store): page counts
    /// that cannot be counts must neither overflow nor make the next fetch reload pages almost without end.
    @Test("saved page counts that are negative or huge: reported and ignored", arguments: [Int.max, -1, 1_000_001])
    func impossiblePageCounts(forwardPages: Int) async throws {
        let scenario = CacheScenario([])
        let store = InMemoryResultsStore()
        let server = PageServer(items(1...20), pageSize: 5)
        let policy = scenario.policy(.thenFetch, store: store)
        let first = FetchedResultsController(
            definition: FetchDefinition(
                firstPage: server.start, pageRequest: { try await server.page(at: $0) }, cache: policy))
        try await first.performFetch()
        try await first.loadNextPage()
        let saved = try #require(try await store.results(forKey: "items"))
        var json = try #require(try JSONSerialization.jsonObject(with: saved.data) as? [String: Any])
        #expect(json["forwardPages"] as? Int == 2)
        json["forwardPages"] = forwardPages
        try await store.save(
            CachedResults(data: try JSONSerialization.data(withJSONObject: json), savedAt: saved.savedAt),
            forKey: "items")

        let log = EventHarness.DiagnosticLog()
        let second = FetchedResultsController(
            definition: FetchDefinition(
                firstPage: server.start, pageRequest: { try await server.page(at: $0) }, cache: policy),
            diagnostics: log.handler)
        try await second.performFetch()
        #expect(log.cacheLoadFailures.count == 1)
        #expect(second.resultsOrigin == .request && second.pagination.pagesLoaded == 1)
        try await second.loadNextPage()
        #expect(second.pagination.pagesLoaded == 2)
    }

    /// An offset read back from a cache can be any number: the next page from the largest ends the pages.
    @Test("offset pages whose saved cursor is Int.max: the next full page is the last")
    func largestSavedOffset() async throws {
        let scenario = CacheScenario([])
        let store = InMemoryResultsStore()
        let full = (1...2).map { Item($0, score: $0) }
        let definition = FetchDefinition<Item>.offsetPages(
            limit: 2, cache: scenario.policy(.insteadOfFetching, store: store)
        ) { _, _ in full }
        try await FetchedResultsController(definition: definition).performFetch()
        let saved = try #require(try await store.results(forKey: "items"))
        var json = try #require(try JSONSerialization.jsonObject(with: saved.data) as? [String: Any])
        json["next"] = ["value": Int.max]
        try await store.save(
            CachedResults(data: try JSONSerialization.data(withJSONObject: json), savedAt: saved.savedAt),
            forKey: "items")
        let controller = FetchedResultsController(definition: definition)
        try await controller.performFetch()
        #expect(controller.hasNextPage)
        try await controller.loadNextPage()
        #expect(!controller.hasNextPage && controller.pagination.lastError == nil)
    }

    @Test("a plain definition's cache is not a paginated one's: reported and ignored")
    func plainCacheReadByPages() async throws {
        let scenario = CacheScenario(items(1...4))
        try await scenario.controller(.thenFetch).performFetch()
        let server = PageServer(items(1...20), pageSize: 5)
        let log = EventHarness.DiagnosticLog()
        let paged = FetchedResultsController(
            definition: Self.definition(server, scenario, .thenFetch), diagnostics: log.handler)
        try await paged.performFetch()
        #expect(log.cacheLoadFailures.count == 1)
        #expect(paged.resultsOrigin == .request && paged.fetchedObjects.count == 5)
    }
}
