import Foundation
import LiveResults
import LiveResultsTestSupport
import LiveResultsPostgres
import PostgresNIO
import PostgresTestSupport
import Testing

@Suite("PostgresLiveTable: lost connections")
struct ConnectionTests {
    @Test("A listening connection terminated mid-stream: reconnect, .invalidated, the refetch catches up")
    func terminatedBackend() async throws {
        try await withDatabase { client, _ in
            try await client.query(PostgresQuery(unsafeSQL: Todo.createTable()))
            let live = try await LiveTodos(client: client)
            try await client.query("INSERT INTO todos (title, project, priority) VALUES ('before', 'A', 1)")
            #expect(await eventually { live.shown.count == 1 })
            try await client.query(
                """
                SELECT pg_terminate_backend(pid) FROM pg_stat_activity
                WHERE datname = current_database() AND pid <> pg_backend_pid() AND query LIKE 'LISTEN%'
                """)
            for index in 0..<20 {
                try await client.query(
                    "INSERT INTO todos (title, project, priority) VALUES (\("while \(index)"), 'B', \(index % 3))")
            }
            try await client.query("DELETE FROM todos WHERE title = 'before'")
            #expect(await eventually { live.log.listens >= 2 })
            #expect(try await eventually { try await live.matches(client) })
            #expect(live.log.failures >= 1)
            #expect(live.checker.violations == [])
        }
    }

    @Test("The server restarted (pg_ctl restart) mid-stream: reconnect with backoff, results equal SELECT")
    func serverRestart() async throws {
        // A cluster of its own: restarting the shared one would break the other tests.
        let cluster = try TemporaryPostgres()
        defer { cluster.stop() }
        let server = PostgresTestServer(cluster: cluster)
        try await server.withDatabase { client, configuration in
            try await client.query(PostgresQuery(unsafeSQL: Todo.createTable()))
            let live = try await LiveTodos(client: client)
            try await client.query("INSERT INTO todos (title, project, priority) VALUES ('before', 'A', 1)")
            #expect(await eventually { live.shown.count == 1 })
            try cluster.restart()
            try await PostgresTestServer.withClient(configuration) { writer in
                for index in 0..<10 {
                    try await writer.query(
                        "INSERT INTO todos (title, project, priority) VALUES (\("after \(index)"), 'B', \(index % 3))")
                }
                #expect(await eventually(timeout: .seconds(40)) { live.log.listens >= 2 })
                #expect(try await eventually(timeout: .seconds(40)) { try await live.matches(writer) })
            }
            #expect(live.checker.violations == [])
        }
    }

    @Test(
        "Wrong credentials or an unreachable host: the fetch fails into state, no crash, no busy loop",
        .timeLimit(.minutes(3)))
    func unreachable() async throws {
        let server = try PostgresTestServer.shared()
        var wrongPassword = server.configuration(password: "wrong password")
        wrongPassword.options.connectTimeout = .seconds(2)
        let unusedPort = try TemporaryPostgres.freePort()
        var unreachable = PostgresClient.Configuration(
            host: "127.0.0.1", port: unusedPort, username: "nobody", password: nil, database: "none", tls: .disable)
        unreachable.options.connectTimeout = .seconds(2)
        try await withThrowingTaskGroup(of: Void.self) { group in
            for (configuration, expected) in [
                // postgres-nio 1.33's pool keeps the server's message to itself: after 60 seconds of failed
                // connection attempts its circuit breaker fails the waiting requests with this error.
                (wrongPassword, "connectionCreationCircuitBreakerTripped"),
                (unreachable, "connectionCreationCircuitBreakerTripped"),
            ] {
                group.addTask {
                    try await PostgresTestServer.withClient(configuration) { client in
                        let log = ListenerLog()
                        let table = PostgresLiveTable<Todo>(
                            client: client, table: "todos",
                            reconnectBackoff: Backoff(initialDelay: .milliseconds(200), maximumDelay: .seconds(2)),
                            listenerEvents: { log.record($0) })
                        let controller = FetchedResultsController(definition: table.fetchDefinition())
                        let subscription = controller.observe(table)
                        let started = ContinuousClock.now
                        await #expect(throws: (any Error).self) { try await controller.performFetch() }
                        let message = controller.state.error.map { String(reflecting: $0) } ?? ""
                        #expect(message.contains(expected), "\(message)")
                        // The listener retries with backoff: a handful of attempts, not a busy loop.
                        let elapsed = ContinuousClock.now - started
                        let seconds = Double(elapsed.components.seconds) + 1
                        #expect(Double(log.failures) <= seconds * 2 + 2, "\(log.failures) failures in \(elapsed)")
                        subscription.cancel()
                    }
                }
            }
            try await group.waitForAll()
        }
    }
}
