import Foundation
import LiveResults
import LiveResultsTesting
import LiveResultsTestSupport
import LiveResultsPostgres
import PostgresNIO
import Testing

@Suite("PostgresLiveTable: rows as live results")
struct LiveTableTests {
    @Test("installTrigger() is idempotent: one function, three triggers")
    func installTwice() async throws {
        try await withDatabase { client, _ in
            try await client.query(PostgresQuery(unsafeSQL: Todo.createTable()))
            let table = PostgresLiveTable<Todo>(client: client, table: "todos", idColumn: "id")
            try await table.installTrigger()
            try await table.installTrigger()
            let triggers = try await client.query(
                "SELECT count(*) FROM pg_trigger WHERE tgrelid = 'todos'::regclass AND NOT tgisinternal"
            ).collect().first?.decode(Int.self)
            let functions = try await client.query(
                "SELECT count(*) FROM pg_proc WHERE proname LIKE 'liveresults_notify_%'"
            ).collect().first?.decode(Int.self)
            #expect(triggers == 3)
            #expect(functions == 1)
            try await table.removeTrigger()
            let left = try await client.query(
                "SELECT count(*) FROM pg_trigger WHERE tgrelid = 'todos'::regclass AND NOT tgisinternal"
            ).collect().first?.decode(Int.self)
            #expect(left == 0)
        }
    }

    @Test("Random writes from another connection: the results equal SELECT, every change set keeps the contract")
    func randomWrites() async throws {
        try await withDatabase { client, _ in
            try await createSeededTodos(client, count: 40)
            let live = try await LiveTodos(client: client)
            #expect(try await live.matches(client))
            var random = SeededGenerator(seed: 26)
            for round in 0..<60 {
                var statements: [PostgresQuery] = []
                for _ in 0..<Int.random(in: 1...4, using: &random) {
                    let project = "P\(Int.random(in: 0..<4, using: &random))"
                    let priority = Int.random(in: 0..<6, using: &random)
                    switch Int.random(in: 0..<4, using: &random) {
                    case 0:
                        statements.append(
                            "INSERT INTO todos (title, project, priority) VALUES (\("t\(round)"), \(project), \(priority))"
                        )
                    case 1:
                        statements.append(
                            "UPDATE todos SET priority = \(priority) WHERE id = (SELECT id FROM todos ORDER BY random() LIMIT 1)"
                        )
                    case 2:
                        statements.append(
                            "UPDATE todos SET project = \(project), title = \("moved \(round)") WHERE id % 7 = \(Int.random(in: 0..<7, using: &random))"
                        )
                    default:
                        statements.append(
                            "DELETE FROM todos WHERE id = (SELECT id FROM todos ORDER BY random() LIMIT 1)")
                    }
                }
                try await transaction(client, statements)
            }
            #expect(try await eventually { try await live.matches(client) })
            #expect(live.checker.violations == [])
            #expect(live.controller.statistics.malformedEvents == 0)
        }
    }

    /// Small transactions are applied on the listening connection's event loop, large ones (over 64 rows) from a
    /// task, and a reconnection's `.invalidated` queues behind both: three writers at once, with the listener
    /// terminated midway, must still leave the results equal to `SELECT` and every change set in the contract.
    @Test("Three writers at once, small and large transactions, the listener terminated midway: results equal SELECT")
    func concurrentWritersAndATerminatedListener() async throws {
        try await withDatabase { client, _ in
            try await createSeededTodos(client, count: 200)
            let live = try await LiveTodos(client: client)
            try await withThrowingTaskGroup(of: Void.self) { writers in
                for writer in 0..<3 {
                    writers.addTask {
                        var random = SeededGenerator(seed: 260 + UInt64(writer))
                        for round in 0..<25 {
                            if writer == 0 && round == 12 { try await terminateListener(client) }
                            try await transactionRetryingDeadlocks(
                                client, randomStatements(writer: writer, round: round, &random))
                        }
                    }
                }
                try await writers.waitForAll()
            }
            #expect(try await eventually { try await live.matches(client) })
            #expect(live.log.listens >= 2, "the listener reconnected")
            #expect(live.checker.violations == [])
            #expect(live.controller.statistics.malformedEvents == 0)
        }
    }

    @Test("10,000 rows changed in one transaction arrive as one change set")
    func oneTransactionOneChangeSet() async throws {
        try await withDatabase { client, _ in
            try await client.query(PostgresQuery(unsafeSQL: Todo.createTable()))
            let live = try await LiveTodos(client: client)
            let before = live.checker.changeSets.count
            try await client.query(
                "INSERT INTO todos (title, project, priority) SELECT 'row ' || i, 'P' || (i % 10), i % 7 FROM generate_series(1, 10000) i"
            )
            // Waits for the change set that shows them all: if they came in several, there would be several.
            #expect(await eventually { live.checker.latest.count == 10_000 })
            let inserted = live.checker.changeSets.dropFirst(before)
            #expect(inserted.count == 1)
            #expect(inserted.first?.insertedItems.count == 10_000)
            // Several statements, inserts, updates and deletes, in one transaction: one change set too.
            try await transaction(
                client,
                [
                    "UPDATE todos SET priority = priority + 1 WHERE id <= 3000",
                    "DELETE FROM todos WHERE id > 9000",
                    "INSERT INTO todos (title, project, priority) VALUES ('late', 'P0', 0)",
                ])
            let expected = try await LiveTodos.select(client)
            #expect(await eventually { live.checker.latest == expected })
            #expect(live.checker.changeSets.count == before + 2)
            #expect(live.checker.violations == [])
        }
    }

    @Test("A row too large for a notification arrives without it and is fetched")
    func largeRows() async throws {
        try await withDatabase { client, _ in
            try await client.query(PostgresQuery(unsafeSQL: Todo.createTable()))
            let live = try await LiveTodos(client: client)
            let large = String(repeating: "x", count: 20_000)
            try await client.query("INSERT INTO todos (title, project, priority) VALUES (\(large), 'Big', 1)")
            try await transaction(
                client,
                [
                    "INSERT INTO todos (title, project, priority) VALUES (\(large + "2"), 'Big', 2)",
                    "INSERT INTO todos (title, project, priority) VALUES ('small', 'Big', 3)",
                    "UPDATE todos SET title = \(large + "updated") WHERE id = 1",
                ])
            #expect(try await eventually { try await live.matches(client) })
            #expect(live.controller.object(withID: 1)?.title == large + "updated")
            #expect(live.checker.violations == [])
        }
    }

    @Test("A row committed while the first fetch runs is in the results after it", arguments: [true, false])
    func firstFetchRace(observeFirst: Bool) async throws {
        try await withDatabase { client, _ in
            try await client.query(PostgresQuery(unsafeSQL: Todo.createTable()))
            try await client.query(
                "INSERT INTO todos (title, project, priority) VALUES ('old', 'A', 1), ('old 2', 'A', 2)")
            let table = PostgresLiveTable<Todo>(client: client, table: "todos")
            try await table.installTrigger()
            // A slow fetch: the statement's snapshot is taken, then it sleeps a second before scanning.
            let controller = FetchedResultsController(
                definition: table.fetchDefinition(where: "(SELECT pg_sleep(1)) IS NOT NULL") { _ in true },
                sortDescriptors: Todo.sortDescriptors, sectionNameKeyPath: \Todo.project)
            var subscription = observeFirst ? controller.observe(table) : nil
            let fetch = Task { try await controller.performFetch() }
            // Once the fetch sleeps, its snapshot is taken: the writes below are after it.
            #expect(
                try await eventually {
                    try await client.query(
                        """
                        SELECT count(*)::int FROM pg_stat_activity
                        WHERE datname = current_database() AND wait_event = 'PgSleep'
                        """
                    ).collect().first?.decode(Int.self) == 1
                }, "the fetch is under way")
            try await client.query("INSERT INTO todos (title, project, priority) VALUES ('during', 'A', 3)")
            try await client.query("UPDATE todos SET title = 'changed during' WHERE id = 1")
            try await client.query("DELETE FROM todos WHERE id = 2")
            _ = try await fetch.value
            if subscription == nil { subscription = controller.observe(table) }
            #expect(
                try await eventually(timeout: .seconds(30)) {
                    try await Array(controller.fetchedObjects) == LiveTodos.select(client)
                })
            #expect(controller.object(withID: 1)?.title == "changed during")
            subscription?.cancel()
        }
    }

    @Test("Rows matching a bound condition, with isIncluded for live events")
    func condition() async throws {
        try await withDatabase { client, _ in
            try await client.query(PostgresQuery(unsafeSQL: Todo.createTable()))
            try await client.query(
                "INSERT INTO todos (title, project, priority) VALUES ('a', 'Home', 1), ('b', 'Work', 1), ('c', 'Home', 9)"
            )
            let project = "Home'; DROP TABLE todos; --"
            try await client.query("UPDATE todos SET project = \(project) WHERE project = 'Home'")
            let live = try await LiveTodos(client: client) { table in
                table.fetchDefinition(where: "project = \(project) AND priority < \(5)") {
                    $0.project == project && $0.priority < 5
                }
            }
            let condition = "project = 'Home''; DROP TABLE todos; --' AND priority < 5"
            #expect(try await live.matches(client, where: condition))
            #expect(live.shown.map(\.title) == ["a"])
            try await client.query("UPDATE todos SET priority = 2 WHERE title = 'c'")
            try await client.query("UPDATE todos SET priority = 7 WHERE title = 'a'")
            try await client.query("UPDATE todos SET project = \(project) WHERE title = 'b'")
            #expect(await eventually { live.shown.map(\.title) == ["b", "c"] })
            #expect(try await live.matches(client, where: condition))
            #expect(live.checker.violations == [])
        }
    }

    @Test("Keyed pages over a sort column and the id")
    func keyedPages() async throws {
        try await withDatabase { client, _ in
            try await client.query(PostgresQuery(unsafeSQL: Todo.createTable()))
            try await client.query(
                "INSERT INTO todos (title, project, priority) SELECT 'row ' || i, 'P', i % 10 FROM generate_series(1, 250) i"
            )
            let table = PostgresLiveTable<Todo>(client: client, table: "todos")
            for descending in [false, true] {
                let controller = FetchedResultsController(
                    definition: table.fetchDefinition(pagesBy: "priority", descending: descending, limit: 100),
                    sortDescriptors: [
                        SortDescriptor(\Todo.priority, order: descending ? .reverse : .forward),
                        SortDescriptor(\Todo.id, order: descending ? .reverse : .forward),
                    ])
                try await controller.performFetch()
                #expect(controller.fetchedObjects.count == 100)
                try await controller.loadNextPage()
                try await controller.loadNextPage()
                #expect(controller.fetchedObjects.count == 250)
                #expect(!controller.hasNextPage)
                var all = try await LiveTodos.select(client).sorted { ($0.priority, $0.id) < ($1.priority, $1.id) }
                if descending { all.reverse() }
                #expect(Array(controller.fetchedObjects) == all)
            }
        }
    }

    @Test("Two controllers on two connections follow the same table and end equal to SELECT")
    func twoControllers() async throws {
        try await withDatabase { client, configuration in
            try await client.query(PostgresQuery(unsafeSQL: Todo.createTable()))
            try await PostgresTestServer.withClient(configuration) { other in
                let first = try await LiveTodos(client: client)
                let second = try await LiveTodos(client: other)
                var random = SeededGenerator(seed: 7)
                for index in 0..<200 {
                    let writer = index.isMultiple(of: 2) ? client : other
                    let priority = Int.random(in: 0..<5, using: &random)
                    if Int.random(in: 0..<3, using: &random) == 0 {
                        try await writer.query("DELETE FROM todos WHERE id = (SELECT min(id) FROM todos)")
                    } else {
                        try await writer.query(
                            "INSERT INTO todos (title, project, priority) VALUES (\("w\(index)"), 'Shared', \(priority))"
                        )
                    }
                }
                #expect(try await eventually { try await first.matches(client) })
                #expect(try await eventually { try await second.matches(other) })
                #expect(first.shown == second.shown)
                #expect(first.checker.violations == [] && second.checker.violations == [])
            }
        }
    }

    @Test("A changed id is a deletion and an insertion; TRUNCATE makes the controller refetch")
    func rekeyAndTruncate() async throws {
        try await withDatabase { client, _ in
            try await client.query(PostgresQuery(unsafeSQL: Todo.createTable()))
            try await client.query("INSERT INTO todos (title, project, priority) VALUES ('a', 'A', 1), ('b', 'A', 2)")
            let live = try await LiveTodos(client: client)
            try await client.query("UPDATE todos SET id = 100 WHERE id = 1")
            #expect(await eventually { live.shown.map(\.id) == [100, 2] })
            #expect(try await live.matches(client))
            try await client.query("TRUNCATE todos")
            #expect(await eventually { live.shown.isEmpty })
            try await client.query("INSERT INTO todos (title, project, priority) VALUES ('c', 'A', 1)")
            #expect(try await eventually { try await live.matches(client) && live.shown.count == 1 })
            #expect(live.checker.violations == [])
        }
    }
}

/// One transaction's statements: a large update (about 67 of 200 rows, past the 64 applied on the event loop) one
/// time in four, else one to three single-row changes.
private func randomStatements(writer: Int, round: Int, _ random: inout SeededGenerator) -> [PostgresQuery] {
    if Int.random(in: 0..<4, using: &random) == 0 {
        let remainder = Int.random(in: 0..<3, using: &random)
        return [
            """
            UPDATE todos SET priority = (priority + 1) % 6, title = \("bulk \(writer) \(round)")
            WHERE id % 3 = \(remainder)
            """
        ]
    }
    return (0..<Int.random(in: 1...3, using: &random)).map { _ in
        let project = "P\(Int.random(in: 0..<4, using: &random))"
        let priority = Int.random(in: 0..<6, using: &random)
        switch Int.random(in: 0..<3, using: &random) {
        case 0:
            return """
                INSERT INTO todos (title, project, priority) VALUES (\("w\(writer) r\(round)"), \(project), \(priority))
                """
        case 1:
            return """
                UPDATE todos SET priority = \(priority), project = \(project)
                WHERE id = (SELECT id FROM todos ORDER BY random() LIMIT 1)
                """
        default:
            return "DELETE FROM todos WHERE id = (SELECT id FROM todos ORDER BY random() LIMIT 1)"
        }
    }
}

/// Runs `statements` in one transaction, again when PostgreSQL ends it to break a deadlock (SQLSTATE 40P01): a
/// large update and a small transaction that locks two of its rows in the other order can deadlock.
private func transactionRetryingDeadlocks(_ client: PostgresClient, _ statements: [PostgresQuery]) async throws {
    for attempt in 1... {
        do {
            return try await transaction(client, statements)
        } catch let error as PSQLError where error.serverInfo?[.sqlState] == "40P01" && attempt < 10 {
            continue
        }
    }
}
