import Foundation
import LiveResults
import LiveResultsHTTP
import LiveResultsTestSupport
import PostgresNIO
import Testing
import TodoServer

/// The server example over PostgreSQL as the peer: writes through the typed REST requests and straight into
/// the table reach a `RemoteResults`.
@Suite("The server example over PostgreSQL as the peer", .timeLimit(.minutes(3)))
struct PostgresPeerTests {
    @Test(
        "RemoteResults follows writes made through REST and through SQL (notifications, and the WAL feed)",
        arguments: [PostgresTodoStore.Changes.notify, .wal])
    func restAndSQL(changes: PostgresTodoStore.Changes) async throws {
        let postgres = try PostgresTestServer.shared()
        try await postgres.withDatabase { client, _ in
            let store = try await PostgresTodoStore(client: client, changes: changes)
            let (todos, followed) = try await store.followTodos()
            defer { followed.cancel() }
            try await HTTPTestServer.serving(try TodoRoutes.router(store).router) { port in
                let api = TransportKind.asyncHTTPClient.client("http://127.0.0.1:\(port)")
                let remote = RemoteResults<Todo>(client: api, path: "todos/events?sections=project")
                let checker = ContractChecker(observing: remote.observeChanges)
                remote.start()
                #expect(await eventually { Array(remote.fetchedObjects) == Array(todos.fetchedObjects) })
                for step in 0..<12 {
                    if step.isMultiple(of: 3) {
                        try await client.query(
                            "INSERT INTO todos (title, project, priority) VALUES (\("sql \(step)"), 'SQL', 1)")
                    } else {
                        let created = try await api.send(
                            CreateTodo(title: "rest \(step)", project: "REST", priority: step % 3),
                            requiringSuccess: true)
                        #expect(created.status == 201)
                    }
                }
                try await client.query("UPDATE todos SET priority = priority + 5 WHERE project = 'SQL'")
                let table = try await Self.select(client)
                #expect(table.count == 12)
                #expect(await eventually { Array(remote.fetchedObjects) == table }, "the replica equals the table")
                // Observers are told after the results change: wait for the last change set too.
                #expect(await eventually { checker.latest == table }, "the change sets rebuild the table")
                #expect(checker.violations.isEmpty, "\(checker.violations)")
                remote.stop()
            }
        }
    }

    /// The table in the server's order: sections by project name, then priority, then id.
    private static func select(_ client: PostgresClient) async throws -> [Todo] {
        let rows = try await client.query(
            #"SELECT id, title, project, priority FROM todos ORDER BY project COLLATE "C", priority, id"#)
        var todos: [Todo] = []
        for try await row in rows.decode((Int64, String, String, Int32).self) {
            todos.append(Todo(id: row.0, title: row.1, project: row.2, priority: Int(row.3)))
        }
        return todos
    }
}
