import LiveResults
import LiveResultsHummingbird
import LiveResultsPostgres
import Logging
import PostgresNIO

/// To-dos kept in PostgreSQL's table `todos`, created when missing: every process on the database shows
/// every write, whether it came through one of them or straight into the table.
///
/// Every query is bounded by ``queryTimeout``: a write the database cannot answer in time (it is down,
/// restarting, or a connection was lost under the query) throws ``TodoServerError/unavailable(_:)``, which
/// the routes answer with `503` and `Retry-After`.
public final class PostgresTodoStore: TodoStore {
    /// How the store learns of committed changes.
    public enum Changes: String, Sendable, Equatable, CaseIterable {
        /// The trigger's notifications and `LISTEN`.
        case notify
        /// The write-ahead log, through a `PostgresChangeFeed` with a temporary slot and the publication
        /// `liveresults_todos`, read as a replication stream when the store is given a connection configuration
        /// for it, else over SQL.
        case wal
        /// The same feed, read over SQL (`pg_logical_slot_peek_binary_changes`) even with a configuration.
        case walSQL = "wal-sql"
    }

    public let controller: FetchedResultsController<Todo>
    /// The table as a live source.
    public let table: PostgresLiveTable<Todo>
    /// The table, which answers the clients' queries.
    public var todos: PostgresLiveTable<Todo> { table }
    /// The longest wait for each query.
    public let queryTimeout: Duration
    /// Whether the database is within reach, as the listening connection finds: lost when it fails,
    /// back when it listens again. The streams tell their clients.
    public let sourceStatus: LiveResultsSourceStatus?
    private let client: PostgresClient
    /// The change feed with `--changes wal`: told of each write, so that the first after a quiet spell is not
    /// held up by the feed's idle back-off.
    private let feed: PostgresChangeFeed?
    private let logger: Logger
    /// Keeps the controller listening while the store exists.
    private let subscription: EventSubscription

    /// The store of `client`'s database (the client must be running): creates the table and its trigger
    /// when missing (with `changes` `.notify`) or its publication (`.wal`, `.walSQL`), then fetches. With
    /// `.wal`, `replication` (the same server and database as `client`) lets the feed read a replication stream.
    ///
    /// Any number of processes may create the store at once on an empty database: the table is created
    /// under an advisory lock, and the trigger's installation takes one of its own.
    public init(
        client: PostgresClient, changes: Changes = .notify, replication: PostgresConnection.Configuration? = nil,
        queryTimeout: Duration = PostgresClient.defaultQueryTimeout,
        logger: Logger = Logger(label: "LiveResultsServer")
    ) async throws {
        self.client = client
        self.queryTimeout = queryTimeout
        self.logger = logger
        try await client.withTimeout(queryTimeout) { client in
            try await client.withTransaction(logger: logger) { connection in
                // `CREATE TABLE IF NOT EXISTS` is not safe against itself: two sessions that both find no table
                // both create it, and one fails on pg_type's unique index. The lock makes them take turns.
                try await connection.query("SELECT pg_advisory_xact_lock(\(Self.creationLock))", logger: logger)
                try await connection.query(
                    """
                    CREATE TABLE IF NOT EXISTS todos (id bigserial PRIMARY KEY, title text NOT NULL, \
                    project text NOT NULL, priority int NOT NULL)
                    """, logger: logger)
            }
        }
        let status = LiveResultsSourceStatus()
        sourceStatus = status
        switch changes {
        case .notify:
            feed = nil
            table = PostgresLiveTable<Todo>(
                client: client, table: "todos", queryTimeout: queryTimeout,
                listenerEvents: { event in
                    Self.log(event, to: logger)
                    switch event {
                    case .connectionFailed: status.set(available: false)
                    case .listening: status.set(available: true)
                    case .rowFetchFailed, .stopped: break
                    }
                })
            try await table.installTrigger()
        case .wal, .walSQL:
            let transport: PostgresChangeFeed.Transport =
                if changes == .wal, let replication { .replicationProtocol(replication) } else { .sqlFunctions }
            let feed = PostgresChangeFeed(
                client: client, publication: "liveresults_todos", transport: transport,
                events: { event in
                    switch event {
                    case .connectionFailed:
                        logger.warning("todos change feed: \(event)")
                        status.set(available: false)
                    case .reading:
                        logger.info("todos change feed: \(event)")
                        status.set(available: true)
                    default: logger.info("todos change feed: \(event)")
                    }
                })
            try await client.withTimeout(queryTimeout) { _ in try await feed.setUp(tables: ["todos"]) }
            self.feed = feed
            table = PostgresLiveTable<Todo>(
                client: client, table: "todos", changes: .replication(feed), queryTimeout: queryTimeout)
        }
        controller = Todo.controller(table.fetchDefinition()) { Self.log($0, to: logger) }
        subscription = controller.observe(table)
        try await controller.performFetch()
    }

    /// The key of the advisory lock under which the table is created: "todos" in ASCII.
    static var creationLock: Int64 { 0x746f_646f_73 }

    public func create(_ input: TodoInput) async throws -> Todo {
        let query: PostgresQuery = """
            INSERT INTO todos (title, project, priority) VALUES (\(input.title ?? ""), \(input.project ?? ""), \
            \(Int32(input.priority ?? 0))) RETURNING id, title, project, priority
            """
        guard let todo = try await todos(query).first else { throw TodoServerError.notFound("not inserted") }
        feed?.wake()
        return todo
    }

    public func update(id: Int64, with input: TodoInput) async throws -> Todo? {
        // COALESCE keeps the fields the request leaves out; one statement, so no other write comes between.
        let updated = try await todos(
            """
            UPDATE todos SET title = COALESCE(\(input.title), title), project = COALESCE(\(input.project), project), \
            priority = COALESCE(\(input.priority.map(Int32.init)), priority) WHERE id = \(id) \
            RETURNING id, title, project, priority
            """
        ).first
        feed?.wake()
        return updated
    }

    public func delete(id: Int64) async throws -> Bool {
        let deleted = try await rows("DELETE FROM todos WHERE id = \(id) RETURNING id")
        feed?.wake()
        return !deleted.isEmpty
    }

    public func checkHealth() async throws {
        _ = try await rows("SELECT 1")
    }

    private func todos(_ query: PostgresQuery) async throws -> [Todo] {
        try await rows(query).map { row in
            let (id, title, project, priority) = try row.decode((Int64, String, String, Int32).self)
            return Todo(id: id, title: title, project: project, priority: Int(priority))
        }
    }

    /// The rows of `query`, read within ``queryTimeout``; a failure is logged with its cause, and thrown as
    /// ``TodoServerError/unavailable(_:)`` when the database could not be reached.
    private func rows(_ query: PostgresQuery) async throws -> [PostgresRow] {
        do {
            return try await client.withTimeout(queryTimeout) { client in try await client.query(query).collect() }
        } catch {
            let failure = DatabaseFailure(error)
            logger.error("database query failed", metadata: ["cause": "\(failure.cause)"])
            throw failure.serverError
        }
    }

    /// Logs what the controller survived: a row that does not decode (its error names the row's id), a
    /// refetch that failed (what was shown stays shown until the next one succeeds).
    private static func log(_ diagnostic: ControllerDiagnostic<Todo>, to logger: Logger) {
        switch diagnostic {
        case .malformedEvent(let error):
            logger.warning("todos: an event was dropped: \(DatabaseFailure.describe(error))")
        case .fetchFailed(let error):
            logger.warning("todos: a refetch failed: \(DatabaseFailure.describe(error))")
        case .requestRetried(let error, let attempt):
            logger.warning("todos: a fetch failed, attempt \(attempt) to come: \(DatabaseFailure.describe(error))")
        default:
            logger.info("todos: \(diagnostic)")
        }
    }

    /// Logs what the listening connection does: its failures and its returns are what a database outage
    /// looks like from here.
    private static func log(_ event: PostgresListenerEvent, to logger: Logger) {
        switch event {
        case .connectionFailed, .rowFetchFailed: logger.warning("todos listener: \(event)")
        case .listening, .stopped: logger.info("todos listener: \(event)")
        }
    }
}
