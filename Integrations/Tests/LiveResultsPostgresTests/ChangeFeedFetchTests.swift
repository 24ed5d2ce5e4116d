import Foundation
import LiveResults
import LiveResultsTesting
import NIOConcurrencyHelpers
import LiveResultsPostgres
import LiveResultsTestSupport
import PostgresNIO
import Testing

/// PostgreSQL's defaults for durability, which the shared test cluster turns off for speed.
let durableSettings = ["fsync": "on", "full_page_writes": "on"]

/// Runs `body` with a database of a cluster of its own, started with `fsync` on (PostgreSQL's defaults).
func withDurableDatabase<Result: Sendable>(
    _ body: @Sendable (TemporaryPostgres, PostgresClient, PostgresClient.Configuration) async throws -> Result
) async throws -> Result {
    let cluster = try TemporaryPostgres(settings: durableSettings)
    defer { cluster.stop() }
    return try await PostgresTestServer(cluster: cluster).withDatabase { client, configuration in
        try await body(cluster, client, configuration)
    }
}

/// Follows a controller's snapshots and records every entity shown at an older version (its `priority`, which
/// the tests' writers only increment) than one shown before.
final class VersionMonitor: Sendable {
    private struct State {
        var latest: [Int64: Int] = [:]
        var regressions: [String] = []
        var snapshots = 0
    }

    private let state = NIOLockedValueBox(State())
    private let subscription = NIOLockedValueBox<EventSubscription?>(nil)

    init(_ controller: FetchedResultsController<Todo>) {
        let (_, subscription) = controller.observeChanges { [weak self] _, snapshot in
            self?.check(snapshot.sections.flatMap { Array($0.objects) })
        }
        self.subscription.withLockedValue { $0 = subscription }
    }

    var regressions: [String] { state.withLockedValue { $0.regressions } }
    var snapshots: Int { state.withLockedValue { $0.snapshots } }

    private func check(_ todos: [Todo]) {
        state.withLockedValue { state in
            state.snapshots += 1
            for todo in todos {
                if let last = state.latest[todo.id], todo.priority < last {
                    state.regressions.append("row \(todo.id): shown at \(last), then at \(todo.priority)")
                }
                state.latest[todo.id] = max(todo.priority, state.latest[todo.id] ?? .min)
            }
        }
    }
}

/// The fetch of a definition that is slow while a flag says so.
final class SlowSwitch: Sendable {
    private let slow = NIOLockedValueBox(false)
    var isSlow: Bool {
        get { slow.withLockedValue { $0 } }
        set { slow.withLockedValue { $0 = newValue } }
    }

    /// `table`'s whole-table definition, which sleeps `delay` after its snapshot while the switch is on.
    func definition(_ table: PostgresLiveTable<Todo>, delay: Double) -> FetchDefinition<Todo> {
        let fast = table.fetchDefinition()
        let slow = table.fetchDefinition(where: "(SELECT pg_sleep(\(delay))) IS NOT NULL") { _ in true }
        var definition = fast
        definition.request = { [self] in try await (isSlow ? slow : fast).request() }
        return definition
    }
}

@Suite("PostgresChangeFeed: fetches of one table by several controllers (fsync on)")
struct ChangeFeedFetchTests {
    /// Two controllers observe one `PostgresLiveTable` through one feed while writers increment rows' priorities
    /// (a version): the first fetches run concurrently, the second slowly, then both refetch many times while
    /// their subscriptions are live. No controller may ever show a row at an older version than it showed
    /// before (a transaction its fetch saw, delivered after the fetch's result), and both end equal to `SELECT`.
    @Test("Two controllers on one table: no entity ever goes back to an older version; both end equal to SELECT")
    func twoControllersOneTable() async throws {
        try await withDurableDatabase { _, client, _ in
            try await client.query(PostgresQuery(unsafeSQL: Todo.createTable()))
            try await client.query(
                "INSERT INTO todos (title, project, priority) SELECT 'row ' || i, 'P', 0 FROM generate_series(1, 10) i")
            let feedLog = FeedLog()
            let feed = PostgresChangeFeed(
                client: client, publication: "liveresults",
                reconnectBackoff: Backoff(initialDelay: .milliseconds(50), maximumDelay: .seconds(1)),
                events: { feedLog.record($0) })
            try await feed.setUp(tables: ["todos"])
            let table = PostgresLiveTable<Todo>(client: client, table: "todos", changes: .replication(feed))
            let slowB = SlowSwitch()
            let a = FetchedResultsController(
                definition: table.fetchDefinition(), sortDescriptors: Todo.sortDescriptors,
                sectionNameKeyPath: \Todo.project)
            let b = FetchedResultsController(
                definition: slowB.definition(table, delay: 0.5), sortDescriptors: Todo.sortDescriptors,
                sectionNameKeyPath: \Todo.project)
            let (monitorA, monitorB) = (VersionMonitor(a), VersionMonitor(b))
            let (checkerA, checkerB) = (ContractChecker(a), ContractChecker(b))
            let subscriptions = [a.observe(table), b.observe(table)]
            defer { subscriptions.forEach { $0.cancel() } }
            let stop = Flag()
            let writers = Task {
                try await withThrowingTaskGroup(of: Void.self) { group in
                    for writer in 0..<3 {
                        group.addTask {
                            var random = SeededGenerator(seed: UInt64(writer) + 17)
                            while !stop.isSet {
                                let id = Int64.random(in: 1...10, using: &random)
                                if writer == 0 {
                                    // Open a little: it runs while fetches take their snapshots.
                                    try await transaction(
                                        client,
                                        [
                                            "UPDATE todos SET priority = priority + 1 WHERE id = \(id)",
                                            "SELECT pg_sleep(0.02)",
                                        ])
                                } else {
                                    try await client.query("UPDATE todos SET priority = priority + 1 WHERE id = \(id)")
                                    // A bounded rate: the test is about the order of fetches and deliveries, not
                                    // whether the feed keeps up with writers as fast as PostgreSQL commits.
                                    try await Task.sleep(for: .milliseconds(4))
                                }
                            }
                        }
                    }
                    try await group.waitForAll()
                }
            }
            // Whatever the fetches do (a timeout on a slow machine throws), the writers stop before the test ends.
            do {
                try await Self.fetchAndRefetch(a, b, slowB)
            } catch {
                stop.set()
                _ = try? await writers.value
                throw error
            }
            stop.set()
            try await writers.value
            try await client.query("INSERT INTO todos (title, project, priority) VALUES ('last', 'Z', 0)")
            let marked: @Sendable (FetchedResultsController<Todo>) -> Bool = { controller in
                controller.fetchedObjects.contains { $0.title == "last" }
            }
            #expect(await eventually { marked(a) && marked(b) })
            let expected = try await LiveTodos.select(client)
            #expect(Array(a.fetchedObjects) == expected)
            #expect(Array(b.fetchedObjects) == expected)
            for (name, monitor) in [("A", monitorA), ("B", monitorB)] {
                let regressions = monitor.regressions
                #expect(regressions.isEmpty, "controller \(name): \(regressions.count), first \(regressions.prefix(4))")
            }
            #expect(checkerA.violations == [])
            #expect(checkerB.violations == [])
            #expect(expected.map(\.priority).reduce(0, +) > 50)
            #expect(feedLog.replacements == 0)
        }
    }

    /// The first fetches of `a` and `b` (B's slow, starting while A's runs), then refetches while their
    /// subscriptions are live, now and then a slow one of B.
    private static func fetchAndRefetch(
        _ a: FetchedResultsController<Todo>, _ b: FetchedResultsController<Todo>, _ slowB: SlowSwitch
    ) async throws {
        try await Task.sleep(for: .milliseconds(200))
        // The first fetches: B's, slow, starts while A's runs; writes go on during both.
        slowB.isSlow = true
        async let first: ChangeSet<Todo> = a.performFetch()
        try await Task.sleep(for: .milliseconds(5))
        try await b.performFetch()
        _ = try await first
        slowB.isSlow = false
        // Refetches while the subscriptions are live, now and then a slow one of B.
        for round in 0..<24 {
            slowB.isSlow = round % 8 == 7
            try await b.performFetch()
            if round % 3 == 0 { try await a.performFetch() }
            try await Task.sleep(for: .milliseconds(15))
        }
    }
}
