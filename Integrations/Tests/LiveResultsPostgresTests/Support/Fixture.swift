import Foundation
import LiveResults
import LiveResultsTesting
import LiveResultsTestSupport
import LiveResultsPostgres
import PostgresNIO
import NIOConcurrencyHelpers
import Testing

/// A test's database: the shared server's, one per test; its client logs to `diagnostics` when given.
func withDatabase<Result: Sendable>(
    diagnostics: PostgresConnectionDiagnostics? = nil,
    _ body: @Sendable (PostgresClient, PostgresClient.Configuration) async throws -> Result
) async throws -> Result {
    let server: PostgresTestServer
    do {
        server = try PostgresTestServer.shared()
    } catch {
        Issue.record("\(error)")
        throw error
    }
    guard let diagnostics else { return try await server.withDatabase(body) }
    return try await server.withDatabase(backgroundLogger: diagnostics.backgroundLogger(), body)
}

/// Records a table's listener events.
final class ListenerLog: Sendable {
    private let events = NIOLockedValueBox<[PostgresListenerEvent]>([])

    var all: [PostgresListenerEvent] { events.withLockedValue { $0 } }

    /// The number of successful `LISTEN`s.
    var listens: Int {
        all.count { if case .listening = $0 { true } else { false } }
    }

    /// The number of failed connections.
    var failures: Int {
        all.count { if case .connectionFailed = $0 { true } else { false } }
    }

    func record(_ event: PostgresListenerEvent) {
        events.withLockedValue { $0.append(event) }
    }
}

/// A live table of to-dos with a controller that follows it: sections by project, then priority, then id.
struct LiveTodos: Sendable {
    let table: PostgresLiveTable<Todo>
    let controller: FetchedResultsController<Todo>
    let checker: ContractChecker<Todo>
    let log: ListenerLog
    let subscription: EventSubscription

    /// Creates the live table (installing its trigger), the controller, and subscribes; fetches unless told not to.
    init(
        client: PostgresClient, table name: String = "todos", idColumn: String = "id", schema: String? = nil,
        channel: String? = nil, decoder: JSONDecoder = JSONDecoder(),
        definition: ((PostgresLiveTable<Todo>) -> FetchDefinition<Todo>)? = nil, fetch: Bool = true,
        diagnostics: PostgresConnectionDiagnostics? = nil
    ) async throws {
        let log = ListenerLog()
        table = PostgresLiveTable<Todo>(
            client: client, table: name, idColumn: idColumn, schema: schema, channel: channel, decoder: decoder,
            reconnectBackoff: Backoff(initialDelay: .milliseconds(50), maximumDelay: .seconds(1)),
            diagnostics: diagnostics, listenerEvents: { log.record($0) })
        self.log = log
        try await table.installTrigger()
        controller = FetchedResultsController(
            definition: definition?(table) ?? table.fetchDefinition(), sortDescriptors: Todo.sortDescriptors,
            sectionNameKeyPath: \Todo.project)
        checker = ContractChecker(controller)
        subscription = controller.observe(table)
        if fetch { try await controller.performFetch() }
    }

    /// The controller's to-dos in display order.
    var shown: [Todo] { Array(controller.fetchedObjects) }

    /// Whether the controller shows exactly what `SELECT` returns, in its order.
    func matches(_ client: PostgresClient, where condition: String = "true") async throws -> Bool {
        try await shown == Self.select(client, where: condition)
    }

    /// The rows of `todos` in the controller's order (`ORDER BY project, priority, id`).
    static func select(_ client: PostgresClient, table: String = "todos", where condition: String = "true")
        async throws -> [Todo]
    {
        let rows = try await client.query(
            PostgresQuery(
                unsafeSQL: """
                    SELECT id, title, project, priority FROM \(table) WHERE \(condition)
                    ORDER BY project COLLATE "C", priority, id
                    """))
        var todos: [Todo] = []
        for try await (id, title, project, priority) in rows.decode((Int64, String, String, Int).self) {
            todos.append(Todo(id: id, title: title, project: project, priority: priority))
        }
        return todos
    }
}

/// Creates `todos` with `count` rows, in three projects and five priorities.
func createSeededTodos(_ client: PostgresClient, count: Int) async throws {
    try await client.query(PostgresQuery(unsafeSQL: Todo.createTable()))
    try await client.query(
        """
        INSERT INTO todos (title, project, priority)
        SELECT 'seed ' || i, 'P' || (i % 3), i % 5 FROM generate_series(1, \(count)) i
        """)
}

/// Ends the listening connections of the current database from the server's side.
func terminateListener(_ client: PostgresClient) async throws {
    try await client.query(
        """
        SELECT pg_terminate_backend(pid) FROM pg_stat_activity
        WHERE datname = current_database() AND pid <> pg_backend_pid() AND query LIKE 'LISTEN%'
        """)
}

/// Runs `statements` in one transaction.
func transaction(_ client: PostgresClient, _ statements: [PostgresQuery]) async throws {
    try await client.withConnection { connection in
        let logger = Logger(label: "tests")
        try await connection.query("BEGIN", logger: logger)
        do {
            for statement in statements { try await connection.query(statement, logger: logger) }
            try await connection.query("COMMIT", logger: logger)
        } catch {
            _ = try? await connection.query("ROLLBACK", logger: logger)
            throw error
        }
    }
}

/// `LiveResultsTesting`'s SplitMix64, so that a failing random test can be replayed.
typealias SeededGenerator = SeededRandom
