import LiveResults
import LiveResultsPostgres
import PostgresNIO

/// To-dos kept in PostgreSQL's table `todos`, created when missing: every process on the database shows
/// every write, whether it came through one of them or straight into the table.
public final class PostgresTodoStore: TodoStore {
    /// How the store learns of committed changes.
    public enum Changes: String, Sendable, Equatable, CaseIterable {
        /// The trigger's notifications and `LISTEN`.
        case notify
        /// The write-ahead log, through a `PostgresChangeFeed` with a temporary slot and the publication
        /// `liveresults_todos`.
        case wal
    }

    public let controller: FetchedResultsController<Todo>
    /// The table as a live source.
    public let table: PostgresLiveTable<Todo>
    private let client: PostgresClient
    /// Keeps the controller listening while the store exists.
    private let subscription: EventSubscription

    /// The store of `client`'s database (the client must be running): creates the table and its trigger
    /// (with `changes` `.notify`) or its publication (`.wal`) when missing, then fetches.
    public init(client: PostgresClient, changes: Changes = .notify) async throws {
        self.client = client
        try await client.query(
            """
            CREATE TABLE IF NOT EXISTS todos (id bigserial PRIMARY KEY, title text NOT NULL, \
            project text NOT NULL, priority int NOT NULL)
            """)
        switch changes {
        case .notify:
            table = PostgresLiveTable<Todo>(client: client, table: "todos")
            try await table.installTrigger()
        case .wal:
            let feed = PostgresChangeFeed(client: client, publication: "liveresults_todos")
            try await feed.setUp(tables: ["todos"])
            table = PostgresLiveTable<Todo>(client: client, table: "todos", changes: .replication(feed))
        }
        controller = Todo.controller(table.fetchDefinition())
        subscription = controller.observe(table)
        try await controller.performFetch()
    }

    public func create(_ input: TodoInput) async throws -> Todo {
        let rows = try await client.query(
            """
            INSERT INTO todos (title, project, priority) VALUES (\(input.title ?? ""), \(input.project ?? ""), \
            \(Int32(input.priority ?? 0))) RETURNING id, title, project, priority
            """)
        guard let todo = try await Self.todos(rows).first else { throw TodoServerError.notFound("not inserted") }
        return todo
    }

    public func update(id: Int64, with input: TodoInput) async throws -> Todo? {
        // COALESCE keeps the fields the request leaves out; one statement, so no other write comes between.
        let rows = try await client.query(
            """
            UPDATE todos SET title = COALESCE(\(input.title), title), project = COALESCE(\(input.project), project), \
            priority = COALESCE(\(input.priority.map(Int32.init)), priority) WHERE id = \(id) \
            RETURNING id, title, project, priority
            """)
        return try await Self.todos(rows).first
    }

    public func delete(id: Int64) async throws -> Bool {
        let rows = try await client.query("DELETE FROM todos WHERE id = \(id) RETURNING id")
        var deleted = false
        for try await _ in rows { deleted = true }
        return deleted
    }

    private static func todos(_ rows: PostgresRowSequence) async throws -> [Todo] {
        var todos: [Todo] = []
        for try await (id, title, project, priority) in rows.decode((Int64, String, String, Int32).self) {
            todos.append(Todo(id: id, title: title, project: project, priority: Int(priority)))
        }
        return todos
    }
}
