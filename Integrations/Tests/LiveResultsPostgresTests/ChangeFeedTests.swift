import Foundation
import LiveResults
import LiveResultsTesting
import NIOConcurrencyHelpers
import LiveResultsTestSupport
import PostgresNIO
import Testing

@testable import LiveResultsPostgres

@Suite("PostgresChangeFeed: the write-ahead log as the change feed")
struct ChangeFeedTests {
    @Test(
        "Random writes in transactions: the results equal SELECT, whole transactions in batches, no refetch",
        arguments: FeedRead.allCases)
    func randomWrites(read: FeedRead) async throws {
        try await withDatabase { client, configuration in
            try await createSeededTodos(client, count: 40)
            let live = try await FeedTodos(client: client, transport: read.transport(configuration))
            defer { live.cancel() }
            #expect(try await live.matches(client))
            var random = SeededGenerator(seed: 36)
            for round in 0..<40 {
                var statements: [PostgresQuery] = []
                for _ in 0..<Int.random(in: 1...4, using: &random) {
                    let project = "P\(Int.random(in: 0..<4, using: &random))"
                    let priority = Int.random(in: 0..<6, using: &random)
                    switch Int.random(in: 0..<3, using: &random) {
                    case 0:
                        statements.append(
                            "INSERT INTO todos (title, project, priority) VALUES (\("t\(round)"), \(project), \(priority))"
                        )
                    case 1:
                        statements.append(
                            "UPDATE todos SET priority = \(priority), project = \(project) WHERE id % 5 = \(round % 5)")
                    default:
                        statements.append(
                            "DELETE FROM todos WHERE id = (SELECT id FROM todos ORDER BY random() LIMIT 1)")
                    }
                }
                try await transaction(client, statements)
            }
            // A marker transaction: once it arrived, all 40 before it did.
            try await client.query("INSERT INTO todos (title, project, priority) VALUES ('last', 'Z', 0)")
            #expect(await eventually { live.recorder.written.contains { $0.title == "last" } })
            // The controller is another subscriber, delivered from a task of its own: it may be a step behind.
            #expect(try await eventually { try await live.matches(client) })
            // One batch per transaction, or several queued together as one (the subscriber behind the feed).
            #expect((1...41).contains(live.recorder.all.count))
            // A stream is read by a walsender of its own; over SQL, the slot is read by an ordinary backend.
            let walsenders = try await client.query(
                """
                SELECT count(*)::int FROM pg_stat_activity
                WHERE backend_type = 'walsender' AND datname = current_database()
                """
            ).collect().first?.decode(Int.self)
            #expect(walsenders == (read == .stream ? 1 : 0))
            #expect(live.recorder.invalidations == 0)
            #expect(live.fetches.all.count == 1)
            #expect(live.violations == [])
            #expect(live.controller.statistics.malformedEvents == 0)
        }
    }

    /// Writers increment rows' priorities while the controller's first fetch runs slowly: each row's priorities,
    /// from the fetched one through every delivered update, must go up by one at a time (a replayed transaction
    /// would go back, a missed one skip a step) and end at `SELECT`'s.
    @Test(
        "Exactly once around the first fetch: writes before, during and after a slow fetch; none missed, none replayed",
        arguments: FeedRead.allCases)
    func firstFetchRace(read: FeedRead) async throws {
        try await withDatabase { client, configuration in
            try await client.query(PostgresQuery(unsafeSQL: Todo.createTable()))
            try await client.query(
                "INSERT INTO todos (title, project, priority) SELECT 'row ' || i, 'P', 0 FROM generate_series(1, 30) i")
            let stop = Flag()
            let writers = Task {
                try await withThrowingTaskGroup(of: Void.self) { group in
                    for writer in 0..<3 {
                        group.addTask {
                            var random = SeededGenerator(seed: UInt64(writer))
                            while !stop.isSet {
                                let id = Int64.random(in: 1...30, using: &random)
                                // Some transactions stay open a little: they run while the fetch takes its snapshot.
                                let hold = writer == 0 ? 0.03 : 0
                                try await transaction(
                                    client,
                                    [
                                        "UPDATE todos SET priority = priority + 1 WHERE id = \(id)",
                                        "SELECT pg_sleep(\(hold))",
                                    ])
                            }
                        }
                    }
                    try await group.waitForAll()
                }
            }
            try await Task.sleep(for: .milliseconds(300))
            let live = try await FeedTodos(
                client: client, transport: read.transport(configuration),
                definition: { table in
                    // The rows are read a second after the snapshot: writes meanwhile are not in the result.
                    table.fetchDefinition(where: "(SELECT pg_sleep(1)) IS NOT NULL") { _ in true }
                })
            defer { live.cancel() }
            try await Task.sleep(for: .milliseconds(500))
            stop.set()
            try await writers.value
            try await client.query("INSERT INTO todos (title, project, priority) VALUES ('last', 'Z', 0)")
            #expect(await eventually { live.recorder.written.contains { $0.title == "last" } })
            // The controller is another subscriber, delivered from a task of its own: it may be a step behind.
            #expect(try await eventually { try await live.matches(client) })
            let fetched = try #require(live.fetches.all.first)
            let final = try await LiveTodos.select(client)
            var updates = 0
            for row in fetched {
                let delivered = live.recorder.written.filter { $0.id == row.id }.map(\.priority)
                updates += delivered.count
                let expected = Array(stride(from: row.priority + 1, through: row.priority + delivered.count, by: 1))
                #expect(delivered == expected, "row \(row.id): fetched \(row.priority), then \(delivered)")
                #expect(final.first { $0.id == row.id }?.priority == row.priority + delivered.count)
            }
            #expect(updates > 0)
            #expect(live.recorder.invalidations == 0)
            #expect(live.fetches.all.count == 1)
            #expect(live.violations == [])
        }
    }

    @Test(
        "The feed's connection terminated (pg_terminate_backend) mid-stream: resumed, no refetch, nothing lost",
        arguments: FeedRead.allCases)
    func terminatedReader(read: FeedRead) async throws {
        try await withDatabase { client, configuration in
            try await createSeededTodos(client, count: 20)
            let live = try await FeedTodos(client: client, transport: read.transport(configuration))
            defer { live.cancel() }
            for round in 0..<3 {
                #expect(try await eventually { try await terminateFeedReader(client) > 0 })
                for index in 0..<10 {
                    try await client.query(
                        "INSERT INTO todos (title, project, priority) VALUES (\("r\(round) \(index)"), 'B', \(index % 3))"
                    )
                    try await client.query("UPDATE todos SET priority = priority + 1 WHERE id = \(Int64(index + 1))")
                }
            }
            try await client.query("INSERT INTO todos (title, project, priority) VALUES ('last', 'Z', 0)")
            #expect(await eventually { live.recorder.written.contains { $0.title == "last" } })
            // The controller is another subscriber, delivered from a task of its own: it may be a step behind.
            #expect(try await eventually { try await live.matches(client) })
            #expect(live.feedLog.failures >= 1)
            #expect(live.feedLog.readings >= 2)
            #expect(live.recorder.invalidations == 0)
            #expect(live.fetches.all.count == 1)
            // Each transaction once: 60 writes of one row, the marker.
            #expect(live.recorder.all.joined().count == 61)
            #expect(live.violations == [])
        }
    }

    @Test(
        "PostgreSQL restarted (pg_ctl restart) mid-stream: a named slot resumes, no refetch, nothing lost",
        arguments: FeedRead.allCases)
    func serverRestart(read: FeedRead) async throws {
        let cluster = try TemporaryPostgres()
        defer { cluster.stop() }
        try await PostgresTestServer(cluster: cluster).withDatabase { client, configuration in
            try await createSeededTodos(client, count: 10)
            let live = try await FeedTodos(
                client: client, slot: .named("restart_test"), transport: read.transport(configuration))
            defer { live.cancel() }
            try await client.query("INSERT INTO todos (title, project, priority) VALUES ('before', 'A', 1)")
            #expect(await eventually { live.shown.count == 11 })
            try cluster.restart()
            try await PostgresTestServer.withClient(configuration) { writer in
                for index in 0..<10 {
                    try await writer.query(
                        "INSERT INTO todos (title, project, priority) VALUES (\("after \(index)"), 'B', \(index % 3))")
                }
                #expect(try await eventually(timeout: .seconds(40)) { try await live.matches(writer) })
            }
            #expect(live.recorder.invalidations == 0)
            #expect(live.fetches.all.count == 1)
            // The recorder's subscription is delivered to in a task of its own, maybe after the controller's.
            #expect(await eventually { live.recorder.all.joined().count >= 11 })
            #expect(live.recorder.all.joined().count == 11)
            live.cancel()
            // The named slot outlives the feed; the test drops it, as an operator would.
            #expect(
                await eventually {
                    (try? await client.query("SELECT pg_drop_replication_slot('restart_test')")) != nil
                })
        }
    }

    /// A walsender stopped with `SIGSTOP` keeps its connection open and says nothing: the stream takes it for dead
    /// after 15 s of silence (a ping after 5 s is not answered), and reads again once the server lets the slot go.
    @Test("A replication stream whose server falls silent (SIGSTOP) is reopened: no refetch, nothing lost")
    func silentStream() async throws {
        try await withDatabase { client, configuration in
            try await createSeededTodos(client, count: 5)
            let live = try await FeedTodos(client: client, transport: FeedRead.stream.transport(configuration))
            defer { live.cancel() }
            let walsender = try #require(
                try await client.query(
                    "SELECT active_pid FROM pg_replication_slots WHERE database = current_database() AND active"
                ).collect().first?.decode(Int32.self))
            #expect(kill(walsender, SIGSTOP) == 0)
            let stopped = ContinuousClock.now
            try await client.query("INSERT INTO todos (title, project, priority) VALUES ('during', 'A', 1)")
            #expect(await eventually(timeout: .seconds(40)) { live.feedLog.failures >= 1 })
            let silence = ContinuousClock.now - stopped
            #expect(silence >= .seconds(10), "taken for dead after \(silence)")
            // The new attempt terminated the stopped walsender: it ends once it runs again.
            #expect(kill(walsender, SIGCONT) == 0)
            try await client.query("INSERT INTO todos (title, project, priority) VALUES ('after', 'B', 2)")
            #expect(try await eventually(timeout: .seconds(30)) { try await live.matches(client) })
            #expect(live.recorder.invalidations == 0)
            #expect(live.fetches.all.count == 1)
            // The recorder's subscription is delivered to in a task of its own, maybe after the controller's.
            #expect(await eventually { live.recorder.all.joined().count >= 2 })
            #expect(live.recorder.all.joined().count == 2)
        }
    }

    @Test(
        "A dropped slot: one .invalidated, a new slot, a diagnostic, and the results catch up",
        arguments: FeedRead.allCases)
    func droppedSlot(read: FeedRead) async throws {
        try await withDatabase { client, configuration in
            try await createSeededTodos(client, count: 10)
            let live = try await FeedTodos(client: client, transport: read.transport(configuration))
            defer { live.cancel() }
            // Between two reads the slot is inactive, and can be dropped; a stream's slot once its walsender ended.
            #expect(
                await eventually {
                    if read == .stream { _ = try? await terminateFeedReader(client) }
                    let dropped = try? await client.query(
                        """
                        SELECT pg_drop_replication_slot(slot_name) FROM pg_replication_slots
                        WHERE database = current_database() AND NOT active
                        """
                    ).collect().count
                    return (dropped ?? 0) > 0
                })
            try await client.query("INSERT INTO todos (title, project, priority) VALUES ('after', 'B', 1)")
            #expect(await eventually { live.feedLog.replacements == 1 })
            #expect(try await eventually { try await live.matches(client) })
            #expect(live.recorder.invalidations == 1)
            #expect(live.fetches.all.count == 2)
            #expect(live.violations == [])
        }
    }

    /// `pgoutput` sends nothing for a transaction that touches no table of the publication: were the slot confirmed
    /// only at delivered commits, PostgreSQL would keep (and each read decode again) all the log written since.
    @Test(
        "Writes to tables the feed does not follow: the slot's confirmed position moves past them",
        arguments: FeedRead.allCases)
    func unrelatedWrites(read: FeedRead) async throws {
        try await withDatabase { client, configuration in
            try await createSeededTodos(client, count: 3)
            try await client.query("CREATE TABLE other (id int PRIMARY KEY, value int NOT NULL)")
            let live = try await FeedTodos(client: client, transport: read.transport(configuration))
            defer { live.cancel() }
            for index in 0..<20 { try await client.query("INSERT INTO other VALUES (\(index), 0)") }
            let written = try #require(
                try await client.query("SELECT pg_current_wal_flush_lsn()::text").collect().first?.decode(String.self))
            #expect(
                try await eventually {
                    try await client.query(
                        """
                        SELECT count(*)::int FROM pg_replication_slots
                        WHERE database = current_database() AND confirmed_flush_lsn >= \(written)::pg_lsn
                        """
                    ).collect().first?.decode(Int.self) == 1
                })
            #expect(live.recorder.all.isEmpty)
            try await client.query("INSERT INTO todos (title, project, priority) VALUES ('after', 'B', 1)")
            #expect(try await eventually { try await live.matches(client) })
        }
    }

    /// Runs `body` with 5 seeded to-dos followed through a feed (reads 20 ms apart, a maximumReadInterval of 200 ms)
    /// paced by a manual clock, moved from one of the feed's waits to the next until the feed backs off: from then on
    /// the clock stands still, and only a wake ends the feed's wait.
    private func withIdleFeed(
        _ body: @Sendable (PostgresClient, PostgresChangeFeed, FeedTodos, ManualClock) async throws -> Void
    ) async throws {
        try await withDatabase { client, _ in
            try await createSeededTodos(client, count: 5)
            let clock = ManualClock()
            let feed = PostgresChangeFeed(
                client: client, publication: "liveresults", readInterval: .milliseconds(20),
                maximumReadInterval: .milliseconds(200), clock: clock)
            let live = try await FeedTodos(client: client, feed: feed)
            defer { live.cancel() }
            await backOff(feed, on: clock)
            try await body(client, feed, live, clock)
        }
    }

    /// Moves `clock` to the end of each of `feed`'s waits until the feed waits longer than its read interval: reads
    /// that found nothing for as long as its maximumReadInterval (10 reads), then 20 and 40 ms.
    private func backOff(_ feed: PostgresChangeFeed, on clock: ManualClock) async {
        for _ in 0..<100 {
            // The feed's wait is its only sleep on the clock; the state machine records it first.
            guard await clock.waitForSleepers() else { break }
            if feed.machine.withLockedValue({ $0.isBackingOff }) { return }
            clock.advanceToNextDeadline()
        }
        Issue.record("the feed did not back off")
    }

    /// A feed whose reads found nothing for a while waits long between them (up to its maximumReadInterval); a fetch
    /// that needs the feed's next step wakes it instead of waiting that out. The feed's clock stands still: without
    /// the wake, the fetches would time out.
    @Test("A fetch wakes a feed that waits long after finding nothing: it ends with the feed's clock standing still")
    func fetchWakesIdleFeed() async throws {
        try await withIdleFeed { client, feed, first, clock in
            // A second live table on the feed: its fetch waits for the feed's next step, which looks the table up.
            let start = clock.now
            let second = try await FeedTodos(client: client, feed: feed)
            defer { second.cancel() }
            #expect(try await second.matches(client))
            // A refetch of the first: its subscriptions met a fetch before, so it waits for the feed to read
            // through the position of its snapshot.
            await backOff(feed, on: clock)
            let refetch = clock.now
            try await first.controller.performFetch()
            #expect(first.fetches.all.count == 2)
            #expect(clock.now == refetch, "the clock moved only while the feed backed off again (from \(start))")
        }
    }

    @Test("wake() after a write ends the feed's idle back-off: the write arrives with the feed's clock standing still")
    func wakeAfterWrite() async throws {
        try await withIdleFeed { client, feed, live, clock in
            let start = clock.now
            try await client.query("INSERT INTO todos (title, project, priority) VALUES ('woken', 'A', 1)")
            feed.wake()
            #expect(await eventually(timeout: .seconds(10)) { live.shown.contains { $0.title == "woken" } })
            #expect(clock.now == start)
            // The read that found the write is followed by a wait of the read interval, which wake() leaves: the
            // next write arrives once the clock reaches the wait's end.
            #expect(await clock.waitForSleepers())
            #expect(!feed.machine.withLockedValue { $0.isBackingOff })
            feed.wake()
            #expect(clock.sleepers == 1)
            try await client.query("INSERT INTO todos (title, project, priority) VALUES ('then', 'A', 2)")
            #expect(
                try await eventually {
                    if clock.sleepers > 0 { clock.advanceToNextDeadline() }
                    return try await live.matches(client)
                })
        }
    }

    @Test("TRUNCATE empties the results (one refetch), and later writes arrive", arguments: FeedRead.allCases)
    func truncate(read: FeedRead) async throws {
        try await withDatabase { client, configuration in
            try await createSeededTodos(client, count: 10)
            let live = try await FeedTodos(client: client, transport: read.transport(configuration))
            defer { live.cancel() }
            try await client.query("TRUNCATE todos")
            #expect(await eventually { live.shown.isEmpty })
            try await client.query("INSERT INTO todos (title, project, priority) VALUES ('after', 'B', 1)")
            #expect(try await eventually { try await live.matches(client) && live.shown.count == 1 })
            #expect(live.recorder.invalidations == 1)
            #expect(live.violations == [])
        }
    }

    @Test("A transaction of 100,000 rows arrives as one batch", arguments: FeedRead.allCases)
    func largeTransaction(read: FeedRead) async throws {
        // A cluster of its own: a slot decodes its whole cluster's log, from a position that cannot pass a
        // transaction still running, so every other test's feed would read these rows again at each of its steps.
        let cluster = try TemporaryPostgres()
        defer { cluster.stop() }
        try await PostgresTestServer(cluster: cluster).withDatabase { client, configuration in
            try await client.query(PostgresQuery(unsafeSQL: Todo.createTable()))
            let live = try await FeedTodos(client: client, transport: read.transport(configuration))
            defer { live.cancel() }
            try await client.query(
                """
                INSERT INTO todos (title, project, priority)
                SELECT 'bulk ' || i, 'P' || (i % 3), i % 5 FROM generate_series(1, 100000) i
                """)
            #expect(await eventually(timeout: .seconds(120)) { live.shown.count == 100_000 })
            // The recorder's subscription is delivered to in a task of its own, maybe after the controller's.
            #expect(await eventually(timeout: .seconds(60)) { !live.recorder.all.isEmpty })
            #expect(live.recorder.all.map(\.count) == [100_000])
            #expect(try await live.matches(client))
        }
    }

    @Test("An update that leaves a TOASTed column unchanged: the row is fetched, the entity whole")
    func unchangedToast() async throws {
        try await withDatabase { client, _ in
            try await client.query(PostgresQuery(unsafeSQL: Todo.createTable()))
            let live = try await FeedTodos(client: client)
            defer { live.cancel() }
            // Random hex does not compress much: 8,000 characters are stored out of line.
            try await client.query(
                """
                INSERT INTO todos (title, project, priority)
                SELECT string_agg(md5(i::text || random()::text), ''), 'A', 1 FROM generate_series(1, 250) i
                """)
            #expect(await eventually { live.shown.count == 1 })
            try await client.query("UPDATE todos SET priority = 2")
            #expect(await eventually { live.shown.first?.priority == 2 })
            #expect(live.shown.first?.title.count == 8000)
            #expect(try await live.matches(client))
            #expect(live.controller.statistics.malformedEvents == 0)
        }
    }

    @Test("One feed, two tables, the second added to the publication later")
    func twoTables() async throws {
        try await withDatabase { client, _ in
            try await createSeededTodos(client, count: 5)
            try await client.query(PostgresQuery(unsafeSQL: Todo.createTable("later")))
            let first = try await FeedTodos(client: client)
            defer { first.cancel() }
            let second = try await FeedTodos(client: client, table: "later", feed: first.feed)
            defer { second.cancel() }
            try await transaction(
                client,
                [
                    "INSERT INTO todos (title, project, priority) VALUES ('one', 'A', 1)",
                    "INSERT INTO later (title, project, priority) VALUES ('two', 'B', 2)",
                ])
            #expect(try await eventually { try await first.matches(client) && second.shown.count == 1 })
            #expect(try await second.matches(client, table: "later"))
            // The recorders are subscribers of their own, delivered from their own tasks: maybe after the controllers.
            #expect(await eventually { first.recorder.all.count == 1 && second.recorder.all.count == 1 })
            #expect(first.recorder.all.count == 1)
            #expect(second.recorder.all.count == 1)
        }
    }

    /// A subscriber stuck in its first batch (a large window's versions, say, slower than the commits): the
    /// feed's reading task must go on for the table's other subscribers, and the transactions committed
    /// meanwhile must then reach the slow one as one batch, in order, so that it catches up.
    @Test("A subscriber stuck in a batch holds back no other; what committed meanwhile reaches it as one batch")
    func slowSubscriber() async throws {
        try await withDatabase { client, _ in
            try await createSeededTodos(client, count: 10)
            // Subscribed before the first fetch, which releases both subscriptions exactly.
            let live = try await FeedTodos(client: client, fetch: false)
            defer { live.cancel() }
            let slow = StuckRecorder()
            let subscription = live.table.subscribe(slow.subscriber)
            defer { subscription.cancel() }
            try await live.controller.performFetch()
            try await client.query("UPDATE todos SET priority = priority + 1 WHERE id = 1")
            #expect(await eventually { slow.isStuck })
            for _ in 0..<30 { try await client.query("UPDATE todos SET priority = priority + 1 WHERE id = 1") }
            try await client.query("INSERT INTO todos (title, project, priority) VALUES ('last', 'Z', 0)")
            // Delivered from the reading task, the controller would wait for the stuck subscriber.
            #expect(await eventually { live.recorder.written.contains { $0.title == "last" } })
            // The controller is another subscriber, delivered from a task of its own: it may be a step behind.
            #expect(try await eventually { try await live.matches(client) })
            slow.release()
            #expect(await eventually { slow.recorder.written.contains { $0.title == "last" } })
            let priorities = slow.recorder.written.filter { $0.id == 1 }.map(\.priority)
            #expect(priorities == Array(2...32))
            // The first batch, then the 31 transactions queued behind it: one batch, or two should the last one
            // have been queued after the controller showed it.
            #expect((2...3).contains(slow.recorder.all.count), "\(slow.recorder.all.map(\.count))")
            #expect(live.recorder.invalidations == 0)
            #expect(live.violations == [])
        }
    }

    @Test("setUp refuses, before installing anything: no REPLICATION, not the owner, no primary key")
    func setUpErrors() async throws {
        try await withDatabase { client, configuration in
            try await client.query(PostgresQuery(unsafeSQL: Todo.createTable()))
            try await client.query("CREATE TABLE keyless (id bigint, title text)")
            let admin = PostgresChangeFeed(client: client, publication: "keyless_pub")
            await #expect {
                try await admin.setUp(tables: ["keyless"])
            } throws: { error in
                guard case .noReplicaIdentity("keyless") = error as? PostgresLiveTableError else { return false }
                return "\(error)".contains("REPLICA IDENTITY")
            }
            let role = "feed_\(UUID().uuidString.prefix(8).lowercased())"
            try await client.query(PostgresQuery(unsafeSQL: "CREATE ROLE \(role) LOGIN PASSWORD 'secret'"))
            var userConfiguration = configuration
            userConfiguration.username = role
            userConfiguration.password = "secret"
            try await PostgresTestServer.withClient(userConfiguration) { user in
                let feed = PostgresChangeFeed(client: user, publication: "user_pub")
                await #expect {
                    try await feed.setUp(tables: ["todos"])
                } throws: { error in
                    guard case .missingReplicationPrivilege(role) = error as? PostgresLiveTableError else {
                        return false
                    }
                    return "\(error)".contains("ALTER ROLE \(role) REPLICATION")
                }
                try await client.query(PostgresQuery(unsafeSQL: "ALTER ROLE \(role) REPLICATION"))
                await #expect {
                    try await feed.setUp(tables: ["todos"])
                } throws: { error in
                    guard case .notTableOwner("todos", role) = error as? PostgresLiveTableError else { return false }
                    return true
                }
            }
            let publications = try await client.query("SELECT count(*)::int FROM pg_publication").collect().first?
                .decode(Int.self)
            #expect(publications == 0)
            try await client.query(PostgresQuery(unsafeSQL: "DROP ROLE \(role)"))
        }
    }

    @Test("setUp on a server with wal_level = replica names the setting and how to change it")
    func walLevel() async throws {
        let cluster = try TemporaryPostgres(settings: ["wal_level": "replica"])
        defer { cluster.stop() }
        try await PostgresTestServer(cluster: cluster).withDatabase { client, _ in
            try await client.query(PostgresQuery(unsafeSQL: Todo.createTable()))
            let feed = PostgresChangeFeed(client: client, publication: "liveresults")
            await #expect {
                try await feed.setUp(tables: ["todos"])
            } throws: { error in
                guard case .walLevelNotLogical("replica") = error as? PostgresLiveTableError else { return false }
                return "\(error)".contains("ALTER SYSTEM SET wal_level = logical")
            }
        }
    }

    @Test("setUp of a stream feed when every replication connection (max_wal_senders) is taken names the setting")
    func walSendersExhausted() async throws {
        let cluster = try TemporaryPostgres(settings: ["max_wal_senders": "1"])
        defer { cluster.stop() }
        try await PostgresTestServer(cluster: cluster).withDatabase { client, configuration in
            try await createSeededTodos(client, count: 3)
            let stream = FeedRead.stream.transport(configuration)
            let first = try await FeedTodos(client: client, transport: stream)
            defer { first.cancel() }
            // The first feed holds the one replication connection; its own setUp again is fine.
            try await first.feed.setUp(tables: ["todos"])
            let second = PostgresChangeFeed(client: client, publication: "second", transport: stream)
            await #expect {
                try await second.setUp(tables: ["todos"])
            } throws: { error in
                guard case .walSendersExhausted(maximum: 1) = error as? PostgresLiveTableError else { return false }
                return "\(error)".contains("max_wal_senders")
            }
            // Over SQL the second feed needs no replication connection.
            try await PostgresChangeFeed(client: client, publication: "second").setUp(tables: ["todos"])
        }
    }

    /// The feed drops its temporary slot when its last subscription ends. That drop is best-effort (it runs after
    /// the reading task, and the process may end first); the running feeds' sweep drops a slot left behind
    /// (`SlotSweepTests`).
    @Test("setUp twice is idempotent; a feed's temporary slot is dropped when its last subscription ends")
    func setUpTwiceAndSlotCleanup() async throws {
        try await withDatabase { client, _ in
            try await createSeededTodos(client, count: 3)
            let live = try await FeedTodos(client: client)
            try await live.feed.setUp(tables: ["todos"])
            let slots: @Sendable () async throws -> [String] = {
                try await client.query(
                    "SELECT slot_name::text FROM pg_replication_slots WHERE database = current_database()"
                ).collect().map { try $0.decode(String.self) }
            }
            let first = try await slots()
            #expect(first.count == 1)
            live.cancel()
            let next = try await FeedTodos(client: client)
            defer { next.cancel() }
            #expect(
                try await eventually {
                    let now = try await slots()
                    return now.count == 1 && now != first
                })
            try await client.query("INSERT INTO todos (title, project, priority) VALUES ('after', 'B', 1)")
            #expect(try await eventually { try await next.matches(client) })
        }
    }

    @Test("keepReading() holds the feed and its slot with no subscription, across one's end; released, it stops")
    func keepReading() async throws {
        try await withDatabase { client, _ in
            try await createSeededTodos(client, count: 3)
            let feed = PostgresChangeFeed(client: client, publication: "liveresults")
            try await feed.setUp(tables: ["todos"])
            let slots: @Sendable () async throws -> [String] = {
                try await client.query(
                    "SELECT slot_name::text FROM pg_replication_slots WHERE database = current_database()"
                ).collect().map { try $0.decode(String.self) }
            }
            let hold = feed.keepReading()
            #expect(try await eventually { try await slots().count == 1 }, "the hold started a run and its slot")
            let held = try await slots()
            let live = try await FeedTodos(client: client, feed: feed)
            try await client.query("INSERT INTO todos (title, project, priority) VALUES ('held', 'B', 1)")
            #expect(try await eventually { try await live.matches(client) })
            #expect(try await slots() == held, "the subscription joined the hold's run")
            live.cancel()
            // The last subscription ended; the hold keeps the run and its slot, which goes on reading.
            try await client.query("INSERT INTO todos (title, project, priority) VALUES ('unread', 'B', 1)")
            try await Task.sleep(for: .milliseconds(500))
            #expect(try await slots() == held)
            let after = try await FeedTodos(client: client, feed: feed)
            defer { after.cancel() }
            #expect(try await eventually { try await after.matches(client) })
            after.cancel()
            hold.cancel()
            #expect(try await eventually { try await slots().isEmpty }, "released, the feed dropped its slot")
        }
    }
}

/// A subscriber whose first batch blocks its delivering thread until ``release()`` (for 60 seconds at most),
/// then records every batch.
final class StuckRecorder: Sendable {
    let recorder = EventRecorder()
    private let stuck = NIOLockedValueBox<Bool?>(nil)
    private let gate = DispatchSemaphore(value: 0)

    /// Whether the first batch is blocking its thread now.
    var isStuck: Bool { stuck.withLockedValue { $0 == true } }

    var subscriber: EventSubscriber<Todo> {
        let recording = recorder.subscriber
        return EventSubscriber(
            receive: { [self] events in
                let first = stuck.withLockedValue { stuck in
                    defer { stuck = stuck ?? true }
                    return stuck == nil
                }
                if first {
                    _ = gate.wait(timeout: .now() + 60)
                    stuck.withLockedValue { $0 = false }
                }
                recording.receive(events)
            },
            reportMalformedEvent: { recording.reportMalformedEvent($0) })
    }

    func release() { gate.signal() }
}

/// A flag the writers of a test poll.
final class Flag: Sendable {
    private let value = NIOLockedValueBox(false)
    var isSet: Bool { value.withLockedValue { $0 } }
    func set() { value.withLockedValue { $0 = true } }
}
