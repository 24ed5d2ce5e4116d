import Foundation
import LiveResults
import LiveResultsTestSupport
import LiveResultsPostgres
import PostgresNIO
import Testing

@Suite("PostgresLiveTable: lost connections")
struct ConnectionTests {
    @Test("A listening connection terminated mid-stream: reconnect, .invalidated, the refetch catches up")
    func terminatedBackend() async throws {
        // With diagnostics: the reconnection goes through the wait that fails on a failed attempt, and none fails.
        let diagnostics = PostgresConnectionDiagnostics()
        try await withDatabase(diagnostics: diagnostics) { client, _ in
            try await client.query(PostgresQuery(unsafeSQL: Todo.createTable()))
            let live = try await LiveTodos(client: client, diagnostics: diagnostics)
            try await client.query("INSERT INTO todos (title, project, priority) VALUES ('before', 'A', 1)")
            #expect(await eventually { live.shown.count == 1 })
            try await terminateListener(client)
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
        "Wrong credentials or an unreachable host: the fetch fails at once with the reason in state, no busy loop",
        .timeLimit(.minutes(3)))
    func unreachable() async throws {
        let server = try PostgresTestServer.shared()
        let wrongPassword = server.configuration(password: "wrong password")
        let unusedPort = try TemporaryPostgres.freePort()
        let unreachable = PostgresClient.Configuration(
            host: "127.0.0.1", port: unusedPort, username: "nobody", password: nil, database: "none", tls: .disable)
        try await withThrowingTaskGroup(of: Void.self) { group in
            for (configuration, expected) in [
                (wrongPassword, #"password authentication failed for user "\#(server.username)""#),
                (unreachable, "connection refused"),
            ] {
                group.addTask {
                    let diagnostics = PostgresConnectionDiagnostics()
                    try await PostgresTestServer.withClient(
                        configuration, backgroundLogger: diagnostics.backgroundLogger()
                    ) { client in
                        let log = ListenerLog()
                        let table = PostgresLiveTable<Todo>(
                            client: client, table: "todos",
                            reconnectBackoff: Backoff(initialDelay: .milliseconds(200), maximumDelay: .seconds(2)),
                            diagnostics: diagnostics, listenerEvents: { log.record($0) })
                        let controller = FetchedResultsController(definition: table.fetchDefinition())
                        let subscription = controller.observe(table)
                        defer { subscription.cancel() }
                        let started = ContinuousClock.now
                        await #expect(throws: (any Error).self) { try await controller.performFetch() }
                        // Without diagnostics the client's circuit breaker fails the fetch after 60 s, with no reason.
                        #expect(ContinuousClock.now - started < .seconds(30))
                        let message = controller.state.error.map { String(describing: $0) } ?? ""
                        #expect(message.lowercased().contains(expected.lowercased()), "\(message)")
                        guard case .connectionFailed? = controller.state.error as? PostgresLiveTableError else {
                            Issue.record("not connectionFailed: \(message)")
                            return
                        }
                        #expect(diagnostics.lastConnectionFailure?.lowercased().contains(expected.lowercased()) == true)
                        await #expect(throws: PostgresLiveTableError.self) { try await table.installTrigger() }
                        // The listener reports the same reason, and retries with backoff: a handful, not a busy loop.
                        #expect(await eventually { log.failures >= 2 })
                        try await Task.sleep(for: .seconds(2))
                        let reported = log.all.compactMap { event -> String? in
                            guard case .connectionFailed(let error, _, _) = event else { return nil }
                            return String(describing: error)
                        }
                        #expect(reported.allSatisfy { $0.lowercased().contains(expected.lowercased()) }, "\(reported)")
                        let elapsed = ContinuousClock.now - started
                        let seconds = Double(elapsed.components.seconds) + 1
                        #expect(Double(log.failures) <= seconds * 2 + 2, "\(log.failures) failures in \(elapsed)")
                    }
                }
            }
            try await group.waitForAll()
        }
    }
}
