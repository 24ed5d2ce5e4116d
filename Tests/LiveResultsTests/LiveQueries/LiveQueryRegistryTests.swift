import Foundation
import LiveResults
import LiveResultsTesting
import Testing

@Suite("Live query registry: shared controllers, routing by index, grace and bounds")
struct LiveQueryRegistryTests {
    /// A random query: filters of every operator on a few columns, a random order.
    static func randomQuery(using generator: inout SeededGenerator) throws -> LiveQuery<QueryRow> {
        var filters: [LiveQueryFilter] = []
        let projects: [QueryValue] = ["a", "b", "c", "d"].map { .text($0) }
        switch Int.random(in: 0..<4, using: &generator) {
        case 0:
            filters.append(
                LiveQueryFilter(column: "project", condition: .equal(projects.randomElement(using: &generator)!)))
        case 1:
            filters.append(
                LiveQueryFilter(
                    column: "project", condition: .in(Array(projects.shuffled(using: &generator).prefix(2)))))
        case 2: filters.append(LiveQueryFilter(column: "project", condition: .notEqual(.text("a"))))
        default: break
        }
        switch Int.random(in: 0..<5, using: &generator) {
        case 0: filters.append(LiveQueryFilter(column: "priority", condition: .lessThan(.integer(2))))
        case 1: filters.append(LiveQueryFilter(column: "priority", condition: .in([.integer(1), .integer(3)])))
        case 2: filters.append(LiveQueryFilter(column: "done", condition: .isNull))
        case 3: filters.append(LiveQueryFilter(column: "title", condition: .greaterThanOrEqual(.text("y"))))
        default: break
        }
        let order = [
            LiveQueryOrdering(column: "priority", descending: Bool.random(using: &generator)),
            LiveQueryOrdering(column: "title", descending: Bool.random(using: &generator)),
        ]
        .shuffled(using: &generator).prefix(Int.random(in: 0...2, using: &generator))
        return try LiveQuery(filters: filters, order: Array(order), sectionedBy: "project")
    }

    /// The query's results by the one ordering rule: section, then the query's order (ending with the id).
    static func expected(_ query: LiveQuery<QueryRow>, rows: [QueryRow]) -> [QueryRow] {
        rows.filter(query.isIncluded).sorted { a, b in
            if a.project != b.project { return a.project < b.project }
            for ordering in query.order {
                let (x, y) = ordering.descending ? (b, a) : (a, b)
                switch ordering.column {
                case "priority" where x.priority != y.priority: return x.priority < y.priority
                case "title" where x.title != y.title: return x.title < y.title
                case "id" where x.id != y.id: return x.id < y.id
                default: continue
                }
            }
            return false
        }
    }

    @Test(
        "120 queries over random writes, indexed by one column or two: every controller equals its query's reference after every step",
        arguments: [1, 2, 3] as [UInt64], [["project", "priority"], ["project"]])
    func randomizedRouting(seed: UInt64, indexing: [String]) async throws {
        var generator = SeededGenerator(seed: seed)
        let store = QueryRowStore()
        for id in 1...60 { store.write(QueryRow.random(id: Int64(id), using: &generator)) }
        let registry = LiveQueryRegistry(source: store, indexing: indexing)
        var held: [LiveQueryResults<QueryRow>] = []
        for _ in 0..<120 { held.append(try await registry.results(for: try Self.randomQuery(using: &generator))) }
        #expect(registry.liveQueryCount == Set(held.map(\.query.key)).count)
        let fetchesBefore = store.fetches.withLock { $0 }
        var nextID: Int64 = 61
        for step in 0..<600 {
            let ids = store.rows.withLock { Array($0.keys) }
            switch Int.random(in: 0..<10, using: &generator) {
            case 0..<3:
                store.write(QueryRow.random(id: nextID, using: &generator))
                nextID += 1
            case 3..<8 where !ids.isEmpty:
                store.write(QueryRow.random(id: ids.randomElement(using: &generator)!, using: &generator))
            case 8 where !ids.isEmpty:
                store.delete(ids.randomElement(using: &generator)!)
            default:
                store.delete(nextID + 1_000)  // an id nobody holds
            }
            if step % 20 == 0 || step == 599 {
                let rows = store.rows.withLock { Array($0.values) }
                for results in held {
                    #expect(
                        Array(results.controller.fetchedObjects) == Self.expected(results.query, rows: rows),
                        "seed \(seed), step \(step), query \(results.query)")
                }
            }
        }
        // Routing never costs a refetch.
        #expect(store.fetches.withLock { $0 } == fetchesBefore)
    }

    @Test(
        "queries come and go over random writes, at times none of them indexed: every held controller equals its reference",
        .tags(.concurrent), arguments: [4, 5] as [UInt64])
    func routingWhileQueriesComeAndGo(seed: UInt64) async throws {
        // The router keeps what it saw of each row only while some query is indexed: a query indexed after a spell
        // without one must still see its rows leave.
        var generator = SeededGenerator(seed: seed)
        let store = QueryRowStore()
        for id in 1...40 { store.write(QueryRow.random(id: Int64(id), using: &generator)) }
        let registry = LiveQueryRegistry(source: store, indexing: ["project", "priority"], gracePeriod: .zero)
        var held: [LiveQueryResults<QueryRow>] = []
        for step in 0..<400 {
            let ids = store.rows.withLock { Array($0.keys) }
            switch Int.random(in: 0..<10, using: &generator) {
            case 0 where !held.isEmpty: held.remove(at: Int.random(in: 0..<held.count, using: &generator))
            case 1 where held.count < 6:
                held.append(try await registry.results(for: try Self.randomQuery(using: &generator)))
            case 2: store.write(QueryRow.random(id: Int64(41 + step), using: &generator))
            case 3 where !ids.isEmpty: store.delete(ids.randomElement(using: &generator)!)
            default:
                if let id = ids.randomElement(using: &generator) {
                    store.write(QueryRow.random(id: id, using: &generator))
                }
            }
            let rows = store.rows.withLock { Array($0.values) }
            for results in held {
                try #require(
                    Array(results.controller.fetchedObjects) == Self.expected(results.query, rows: rows),
                    "seed \(seed), step \(step), query \(results.query)")
            }
        }
    }

    @Test(
        "batches of up to 30 events, a row often moved twice in one: every controller equals its reference after each",
        arguments: [6, 7, 8] as [UInt64])
    func randomizedBatches(seed: UInt64) async throws {
        // A batch reaching one query goes on whole; one reaching several is parted per query, from the first
        // event that does not reach the one query the events before it reached.
        var generator = SeededGenerator(seed: seed)
        let store = QueryRowStore()
        for id in 1...40 { store.write(QueryRow.random(id: Int64(id), using: &generator)) }
        let registry = LiveQueryRegistry(source: store, indexing: ["project", "priority"])
        // The first seed's queries are all indexed, so that a batch of project d's rows reaches d's query alone;
        // the others' receive every event too.
        func query(_ filter: LiveQueryFilter) throws -> LiveQuery<QueryRow> {
            try LiveQuery(filters: [filter], sectionedBy: "project")
        }
        var queries = [try query(.equal("project", "d"))]
        if seed == 6 {
            queries += try ["a", "b", "c"].map { try query(.equal("project", $0)) }
            queries.append(try query(LiveQueryFilter(column: "project", condition: .in([.text("b"), .text("c")]))))
        } else {
            for _ in 0..<12 { queries.append(try Self.randomQuery(using: &generator)) }
        }
        var held: [LiveQueryResults<QueryRow>] = []
        for query in queries { held.append(try await registry.results(for: query)) }
        for step in 0..<300 {
            let ids = store.rows.withLock { Array($0.keys) }
            let project = Bool.random(using: &generator) ? "d" : nil
            let batch = (0..<Int.random(in: 1...30, using: &generator)).map { offset -> EntityEvent<QueryRow> in
                let id =
                    Int.random(in: 0..<4, using: &generator) == 0
                    ? Int64(100 + step * 30 + offset) : ids.randomElement(using: &generator)!
                if Int.random(in: 0..<8, using: &generator) == 0 { return .deleted(id) }
                var row = QueryRow.random(id: id, using: &generator)
                if let project { row.project = project }
                return .updated(row)
            }
            store.write(batch: batch)
            let rows = store.rows.withLock { Array($0.values) }
            for results in held {
                try #require(
                    Array(results.controller.fetchedObjects) == Self.expected(results.query, rows: rows),
                    "seed \(seed), step \(step), query \(results.query)")
            }
        }
    }

    @Test("a mutation of the routing is caught: an index that ignores an update's old values leaves rows behind")
    func routingNeedsOldValues() async throws {
        // The randomized test above would see this: a row that moves from project a to b must leave a's query.
        let store = QueryRowStore()
        store.write(QueryRow(id: 1, project: "a", priority: 1, title: "x", score: 0, done: nil))
        let registry = LiveQueryRegistry(source: store)
        let a = try await registry.results(for: LiveQuery(filters: [.equal("project", "a")]))
        let b = try await registry.results(for: LiveQuery(filters: [.equal("project", "b")]))
        store.write(QueryRow(id: 1, project: "b", priority: 1, title: "x", score: 0, done: nil))
        #expect(a.controller.fetchedObjects.isEmpty)
        #expect(b.controller.fetchedObjects.map(\.id) == [1])
        store.delete(1)
        #expect(b.controller.fetchedObjects.isEmpty)
    }

    @Test(
        "equal queries share one controller; a released query is kept for the grace period, then released",
        .tags(.concurrent))
    func sharingAndGrace() async throws {
        let store = QueryRowStore()
        let registry = LiveQueryRegistry(source: store, gracePeriod: .milliseconds(200))
        var first: LiveQueryResults? = try await registry.results(for: LiveQuery(filters: [.equal("project", "a")]))
        let second = try await registry.results(
            for: LiveQuery(filters: [
                LiveQueryFilter(column: "project", condition: .in([.text("a")])), .equal("project", "a"),
            ])
        )
        #expect(second.query != first!.query)  // `in` and `eq` are different filters
        let again = try await registry.results(for: LiveQuery(filters: [.equal("project", "a")]))
        #expect(again.controller === first!.controller)
        #expect(store.fetches.withLock { $0 } == 2)
        first = nil
        #expect(registry.liveQueryCount == 2)
        _ = again  // still held
        let window = again.window(.first(5))
        #expect(again.window(.first(5)) === window)
        withExtendedLifetime(again) {}
    }

    @Test(
        "a query nobody holds goes after the grace period; one asked for again within it is the same",
        .tags(.concurrent))
    func graceExpiry() async throws {
        let store = QueryRowStore()
        let registry = LiveQueryRegistry(source: store, gracePeriod: .milliseconds(300))
        let query = try LiveQuery<QueryRow>(filters: [.equal("project", "a")])
        var held: LiveQueryResults? = try await registry.results(for: query)
        let controller = held!.controller
        held = nil
        held = try await registry.results(for: query)
        #expect(held!.controller === controller)
        held = nil
        #expect(await EventHarness.eventually { registry.liveQueryCount == 0 })
        #expect(controller.fetchedObjects.isEmpty)  // reset: it observes nothing more
        let fresh = try await registry.results(for: query)
        #expect(fresh.controller !== controller)
    }

    @Test("at most maximumQueries live: the query idle longest makes room, else the registry is full")
    func bound() async throws {
        let store = QueryRowStore()
        let registry = LiveQueryRegistry(source: store, maximumQueries: 2, gracePeriod: .seconds(60))
        let a = try await registry.results(for: LiveQuery(filters: [.equal("project", "a")]))
        var b: LiveQueryResults? = try await registry.results(for: LiveQuery(filters: [.equal("project", "b")]))
        await #expect(throws: LiveQueryRegistryError.full(maximum: 2)) {
            _ = try await registry.results(for: LiveQuery(filters: [.equal("project", "c")]))
        }
        b = nil
        let c = try await registry.results(for: LiveQuery(filters: [.equal("project", "c")]))
        #expect(registry.liveQueryCount == 2)
        withExtendedLifetime((a, b, c)) {}
    }

    @Test("releaseIdleLongest releases the query idle longest, and never a held one")
    func releaseIdleLongest() async throws {
        let store = QueryRowStore()
        let registry = LiveQueryRegistry(source: store, gracePeriod: .seconds(60))
        let (a, b, c) = (
            try LiveQuery<QueryRow>(filters: [.equal("project", "a")]),
            try LiveQuery<QueryRow>(filters: [.equal("project", "b")]),
            try LiveQuery<QueryRow>(filters: [.equal("project", "c")])
        )
        let held = try await registry.results(for: a)
        var first: LiveQueryResults? = try await registry.results(for: b)
        var second: LiveQueryResults? = try await registry.results(for: c)
        let (firstController, secondController) = (try #require(first).controller, try #require(second).controller)
        first = nil
        second = nil

        #expect(registry.releaseIdleLongest())
        #expect(registry.liveQueryCount == 2)
        let again = try await registry.results(for: c)
        #expect(again.controller === secondController, "the query idle for less time stays")
        #expect(!registry.releaseIdleLongest(), "no query is idle")
        #expect(registry.liveQueryCount == 2)
        #expect(try await registry.results(for: b).controller !== firstController, "the one idle longest went")
        withExtendedLifetime((held, first, second)) {}
    }

    @Test("a failed fetch is thrown and forgotten: the next request fetches again")
    func failedFetch() async throws {
        let store = QueryRowStore()
        store.write(QueryRow(id: 1, project: "a", priority: 1, title: "x", score: 0, done: nil))
        let registry = LiveQueryRegistry(source: store)
        store.failNextFetch.withLock { $0 = true }
        await #expect(throws: QueryRowStore.StoreFailure.self) {
            _ = try await registry.results(for: LiveQuery(filters: [.equal("project", "a")]))
        }
        #expect(registry.liveQueryCount == 0)
        let results = try await registry.results(for: LiveQuery(filters: [.equal("project", "a")]))
        #expect(results.controller.fetchedObjects.map(\.id) == [1])
    }

    @Test("an invalidation during the first fetch supersedes it: the results are still shown when they are returned")
    func invalidatedFirstFetch() async throws {
        let store = QueryRowStore()
        for id: Int64 in 1...5 {
            store.write(QueryRow(id: id, project: "a", priority: 1, title: "x", score: 0, done: nil))
        }
        let registry = LiveQueryRegistry(source: store)
        store.invalidateDuringNextFetch.withLock { $0 = true }
        let results = try await registry.results(for: LiveQuery(filters: [.equal("project", "a")]))
        #expect(results.controller.fetchedObjects.map(\.id) == [1, 2, 3, 4, 5])
        let window = results.window(.first(3))
        #expect(window.fetchedObjects.map(\.id) == [1, 2, 3])
    }

    @Test("10,000 distinct queries opened and dropped: the registry stays bounded and shrinks back")
    func manyQueries() async throws {
        let store = QueryRowStore()
        let registry = LiveQueryRegistry(source: store, maximumQueries: 500, gracePeriod: .milliseconds(100))
        var most = 0
        for priority in 0..<10_000 {
            let results = try await registry.results(
                for: LiveQuery(filters: [
                    LiveQueryFilter(column: "priority", condition: .equal(.integer(Int64(priority))))
                ]))
            most = max(most, registry.liveQueryCount)
            withExtendedLifetime(results) {}
        }
        #expect(most <= 500)
        #expect(await EventHarness.eventually { registry.liveQueryCount == 0 })
    }

    @Test("many tasks hold and release the same queries at once while writes arrive", .tags(.concurrent))
    func concurrentHolders() async throws {
        let store = QueryRowStore()
        for id in 1...20 {
            store.write(
                QueryRow(id: Int64(id), project: ["a", "b"][id % 2], priority: id % 3, title: "t", score: 0, done: nil))
        }
        let registry = LiveQueryRegistry(source: store, gracePeriod: .milliseconds(1))
        try await withThrowingTaskGroup(of: Void.self) { group in
            for task in 0..<8 {
                group.addTask {
                    for round in 0..<200 {
                        let project = ["a", "b"][(task + round) % 2]
                        let results = try await registry.results(for: LiveQuery(filters: [.equal("project", project)]))
                        #expect(results.controller.fetchedObjects.allSatisfy { $0.project == project })
                    }
                }
            }
            group.addTask {
                for round in 0..<400 {
                    let id = Int64(round % 20 + 1)
                    store.write(
                        QueryRow(
                            id: id, project: ["a", "b"][round % 2], priority: round % 3, title: "t", score: 0, done: nil
                        ))
                }
            }
            try await group.waitForAll()
        }
        let rows = store.rows.withLock { Array($0.values) }
        let a = try await registry.results(for: LiveQuery(filters: [.equal("project", "a")]))
        #expect(Set(a.controller.fetchedObjects.map(\.id)) == Set(rows.filter { $0.project == "a" }.map(\.id)))
    }
}
