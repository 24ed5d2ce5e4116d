import Foundation
import LiveResults
import NIOConcurrencyHelpers
import LiveResultsPostgres
import LiveResultsTestSupport
import PostgresNIO
import Testing

/// Counts what the writers of a fault run committed.
final class WriterCounts: Sendable {
    private let counts = NIOLockedValueBox<[Int: Int]>([:])
    private let failures = NIOLockedValueBox(0)

    func committed(writer: Int) { counts.withLockedValue { $0[writer, default: 0] += 1 } }
    func failed() { failures.withLockedValue { $0 += 1 } }
    var all: [Int: Int] { counts.withLockedValue { $0 } }
    var failedAttempts: Int { failures.withLockedValue { $0 } }
    var total: Int { all.values.reduce(0, +) }
}

// One transport at a time: each case is a load of its own.
@Suite("PostgresChangeFeed under load and faults (fsync on)", .serialized)
struct ChangeFeedFaultTests {
    /// Eight writers insert rows numbered per writer (`project` names the writer, `priority` is its sequence number)
    /// at up to 500 transactions per second together (the load), while the feed's connection is terminated five times and PostgreSQL
    /// restarted once. A `.named` slot resumes each time: no `.invalidated`, no refetch; every sequence number
    /// arrives once, in order per writer; the controller ends equal to `SELECT`.
    @Test(
        "Fault run: 5 × pg_terminate_backend and a restart under up to 500 transactions/s; each write once",
        arguments: FeedRead.allCases)
    func faultRun(read: FeedRead) async throws {
        try await withDurableDatabase { cluster, client, configuration in
            try await client.query(PostgresQuery(unsafeSQL: Todo.createTable()))
            // A retried insert whose first attempt committed after all is a no-op: sequence numbers stay unique.
            try await client.query("CREATE UNIQUE INDEX todos_sequence ON todos (project, priority)")
            let live = try await FeedTodos(
                client: client, slot: .named("fault_run"), transport: read.transport(configuration), checked: false)
            defer { live.cancel() }
            let writerCount = 8
            // Each writer paces itself at this rate; a transaction that fails is tried again.
            let perWriter = 62.5
            let counts = WriterCounts()
            let stop = Flag()
            let start = ContinuousClock.now
            try await PostgresTestServer.withClient(configuration) { writerClient in
                let writers = Task {
                    await withTaskGroup(of: Void.self) { group in
                        for writer in 0..<writerCount {
                            group.addTask {
                                var sequence = 0
                                var next = ContinuousClock.now
                                while !stop.isSet {
                                    do {
                                        let project = "W\(writer)"
                                        let title = "w\(writer)-\(sequence)"
                                        let seq = sequence
                                        // postgres-nio can leave a query on a connection the server closed for ever.
                                        _ = try await writerClient.withTimeout(.seconds(2)) { client in
                                            try await client.query(
                                                """
                                                INSERT INTO todos (title, project, priority) VALUES (\(title), \(project), \(seq))
                                                ON CONFLICT (project, priority) DO NOTHING
                                                """)
                                        }
                                        counts.committed(writer: writer)
                                        sequence += 1
                                        next = next.advanced(by: .seconds(1 / perWriter))
                                        if next > .now { try? await Task.sleep(until: next) } else { next = .now }
                                    } catch {
                                        counts.failed()
                                        try? await Task.sleep(for: .milliseconds(50))
                                        next = .now
                                    }
                                }
                            }
                        }
                    }
                }
                var terminations = 0
                for step in 0..<6 {
                    try await Task.sleep(for: .seconds(2))
                    if step == 3 {
                        // Blocks while pg_ctl runs: not on the tasks' threads.
                        let restarted = await withCheckedContinuation {
                            (continuation: CheckedContinuation<Result<Void, any Error>, Never>) in
                            DispatchQueue.global().async {
                                continuation.resume(returning: Result { try cluster.restart(mode: .fast) })
                            }
                        }
                        try restarted.get()
                        continue
                    }
                    if try await eventually(timeout: .seconds(10), { try await terminateFeedReader(writerClient) > 0 })
                    {
                        terminations += 1
                    }
                }
                try await Task.sleep(for: .seconds(1))
                stop.set()
                await writers.value
                let elapsed = ContinuousClock.now - start
                try await writerClient.query("INSERT INTO todos (title, project, priority) VALUES ('last', 'Z', 0)")
                let arrived = await eventually(timeout: .seconds(40)) {
                    live.recorder.written.contains { $0.title == "last" }
                }
                #expect(arrived, "feed events: \(live.feedLog.all)")
                let expected = try await LiveTodos.select(writerClient)
                #expect(live.shown == expected)
                #expect(terminations == 5)
                let rate = Double(counts.total) / (elapsed / .seconds(1))
                print(
                    "fault run (\(read)): \(counts.total) transactions in \(elapsed) (\(Int(rate))/s),",
                    "\(counts.failedAttempts) failed attempts, \(live.feedLog.failures) feed reconnections")
                // A check that the writes were a load, not a throughput bound: beside other suites on a loaded
                // machine (a debug build), the eight writers and the restart's recovery have managed 126/s.
                #expect(rate > 100)
            }
            #expect(live.recorder.invalidations == 0)
            #expect(live.feedLog.replacements == 0)
            #expect(live.fetches.all.count == 1)
            // Every sequence number once, in order, per writer: 0, 1, 2, … up to what the table holds.
            let written = live.recorder.written
            let final = Array(live.controller.fetchedObjects)
            print(
                "fault run (\(read)): \(written.count) changes delivered for \(final.count) rows,",
                "\(live.fetches.all.count - 1) refetches, \(live.recorder.invalidations) invalidations")
            for writer in 0..<writerCount {
                let project = "W\(writer)"
                let delivered = written.filter { $0.project == project }.map(\.priority)
                let stored = final.filter { $0.project == project }.count
                #expect(stored > 0)
                #expect(
                    delivered == Array(0..<stored), "writer \(writer): \(delivered.count) deliveries, \(stored) rows")
            }
            live.cancel()
            #expect(
                await eventually {
                    (try? await client.query("SELECT pg_drop_replication_slot('fault_run')")) != nil
                })
        }
    }

    /// While PostgreSQL is down, the feed cannot look a newly subscribed table up and the pool hands out no
    /// connection: a fetch over the feed ends within the table's query timeout (it waited for the server's return),
    /// and fetches again once the server is back.
    @Test("A fetch over the feed while PostgreSQL is down ends within the query timeout")
    func fetchWhileDown() async throws {
        let cluster = try TemporaryPostgres()
        defer { cluster.stop() }
        try await PostgresTestServer(cluster: cluster).withDatabase { client, _ in
            try await createSeededTodos(client, count: 3)
            let live = try await FeedTodos(client: client)
            defer { live.cancel() }
            let (table, controller) = Self.todos(client, feed: live.feed)
            let downtime = Duration.seconds(8)
            let restart = Task.detached { try cluster.restart(downtime: downtime) }
            #expect(
                await eventually {
                    (try? await client.withTimeout(.milliseconds(500)) { try await $0.query("SELECT 1") }) == nil
                })
            let subscription = controller.observe(table)
            defer { subscription.cancel() }
            let started = ContinuousClock.now
            await #expect(throws: (any Error).self) { try await controller.performFetch() }
            let waited = started.duration(to: .now)
            #expect(waited < downtime / 2, "the fetch ended after \(waited)")
            try await restart.value
            #expect(
                await eventually(timeout: .seconds(30)) {
                    (try? await controller.performFetch()) != nil && controller.fetchedObjects.count == 3
                })
        }
    }

    /// Creating a logical slot waits until the transactions running on the cluster have ended: a first fetch waits
    /// for that beyond the table's query timeout (up to `slotCreationTimeout`, a minute), and then gets the rows.
    @Test("A first fetch waits for its feed's slot beyond the query timeout while a transaction delays its creation")
    func slotCreationWait() async throws {
        let cluster = try TemporaryPostgres()
        defer { cluster.stop() }
        try await PostgresTestServer(cluster: cluster).withDatabase { client, _ in
            try await createSeededTodos(client, count: 3)
            let held = Task {
                try await transaction(
                    client,
                    ["INSERT INTO todos (title, project, priority) VALUES ('held', 'A', 1)", "SELECT pg_sleep(4)"])
            }
            #expect(
                try await eventually {
                    try await client.query(
                        "SELECT count(*)::int FROM pg_stat_activity WHERE query = 'SELECT pg_sleep(4)'"
                    ).collect().first?.decode(Int.self) == 1
                })
            let feed = PostgresChangeFeed(client: client, publication: "liveresults")
            try await feed.setUp(tables: ["todos"])
            let (table, controller) = Self.todos(client, feed: feed)
            let subscription = controller.observe(table)
            defer { subscription.cancel() }
            let started = ContinuousClock.now
            try await controller.performFetch()
            let waited = started.duration(to: .now)
            #expect(waited >= .seconds(2), "the fetch waited \(waited)")
            try await held.value
            #expect(await eventually { controller.fetchedObjects.count == 4 })
        }
    }

    /// The to-dos over `feed`, with a query timeout of one second, and a controller of them.
    private static func todos(
        _ client: PostgresClient, feed: PostgresChangeFeed
    ) -> (PostgresLiveTable<Todo>, FetchedResultsController<Todo>) {
        let table = PostgresLiveTable<Todo>(
            client: client, table: "todos", changes: .replication(feed), queryTimeout: .seconds(1))
        let controller = FetchedResultsController(
            definition: table.fetchDefinition(), sortDescriptors: Todo.sortDescriptors,
            sectionNameKeyPath: \Todo.project)
        return (table, controller)
    }
}
