import Foundation
import LiveResults
import LiveResultsPostgres
import LiveResultsServing
import Logging
import PostgresNIO

/// To-dos and people kept in PostgreSQL's tables `todos` and `people`, created when missing (a database of the
/// previous version, without `people` and `todos.assignee_id`, is upgraded, its rows kept): every process on
/// the database shows every write, whether it came through one of them or straight into the tables.
///
/// Every query is bounded by ``queryTimeout``: a write the database cannot answer in time (it is down,
/// restarting, or a connection was lost under the query) throws ``TodoServerError/unavailable(_:)``, which
/// the routes answer with `503` and `Retry-After`.
public final class PostgresTodoStore: TodoStore {
    /// How the store learns of committed changes.
    public enum Changes: String, Sendable, Equatable, CaseIterable {
        /// The trigger's notifications and `LISTEN`.
        case notify
        /// The write-ahead log, through one `PostgresChangeFeed` for both tables (one temporary slot, the
        /// publication `liveresults_todos`), read as a replication stream when the store is given a connection
        /// configuration for it, else over SQL.
        case wal
        /// The same feed, read over SQL (`pg_logical_slot_peek_binary_changes`) even with a configuration.
        case walSQL = "wal-sql"
    }

    /// The table of to-dos as a live source.
    public let table: PostgresLiveTable<Todo>
    /// The table of to-dos, which answers the clients' queries.
    public var todos: PostgresLiveTable<Todo> { table }
    /// The table of people as a live source, on the same feed as the to-dos.
    public let people: PostgresLiveTable<Person>
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
    /// With the change feed, keeps it reading while the store exists, whether or not a live query follows a table
    /// (``PostgresChangeFeed/keepReading()``): its slot stays ready, and its sweeps drop the slots of processes
    /// that died even while this one has no clients.
    private let feedHold: EventSubscription?

    /// The store of `client`'s database (the client must be running): creates the tables (unless
    /// `createsTables` is `false`: the application made them) and their triggers when missing (with `changes`
    /// `.notify`) or the publication of both (`.wal`, `.walSQL`), whose feed then starts reading. With
    /// `.wal`, `replication` (the same server and database as `client`) lets the feed read a replication stream.
    ///
    /// Any number of processes may create the store at once on an empty database: the table is created
    /// under an advisory lock, and the trigger's installation takes one of its own.
    public init(
        client: PostgresClient, changes: Changes = .notify, createsTables: Bool = true,
        replication: PostgresConnection.Configuration? = nil,
        queryTimeout: Duration = PostgresClient.defaultQueryTimeout,
        logger: Logger = Logger(label: "LiveResultsServer")
    ) async throws {
        self.client = client
        self.queryTimeout = queryTimeout
        self.logger = logger
        if createsTables {
            try await client.withTimeout(queryTimeout) { client in
                try await client.withTransaction(logger: logger) { connection in
                    // `CREATE TABLE IF NOT EXISTS` is not safe against itself: two sessions that both find no
                    // table both create it, and one fails on pg_type's unique index. The lock makes them take turns.
                    try await connection.query("SELECT pg_advisory_xact_lock(\(Self.creationLock))", logger: logger)
                    for statement in Self.schema { try await connection.query(statement, logger: logger) }
                }
            }
        }
        let status = LiveResultsSourceStatus()
        sourceStatus = status
        switch changes {
        case .notify:
            feed = nil
            feedHold = nil
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
            people = PostgresLiveTable<Person>(client: client, table: "people", queryTimeout: queryTimeout)
            try await table.installTrigger()
            try await people.installTrigger()
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
                    case .slotLeft:
                        logger.warning("todos change feed: \(event)")
                    default: logger.info("todos change feed: \(event)")
                    }
                })
            try await client.withTimeout(queryTimeout) { _ in try await feed.setUp(tables: ["todos", "people"]) }
            self.feed = feed
            feedHold = feed.keepReading()
            table = PostgresLiveTable<Todo>(
                client: client, table: "todos", changes: .replication(feed), queryTimeout: queryTimeout)
            people = PostgresLiveTable<Person>(
                client: client, table: "people", changes: .replication(feed), queryTimeout: queryTimeout)
        }
    }

    /// Shuts the change feed down, as the server stops gracefully: it stops reading, and drops its temporary slot
    /// within `timeout` or ``PostgresChangeFeed/defaultShutdownTimeout`` (5 seconds), whichever is shorter, or
    /// leaves it to the other processes' sweeps when the database does not answer in time, which is logged.
    /// Nothing with notifications.
    ///
    /// - Complexity: A few short queries.
    public func shutdown(within timeout: Duration) async {
        guard let feed else { return }
        let timeout = min(timeout, PostgresChangeFeed.defaultShutdownTimeout)
        switch await feed.shutdown(timeout: timeout) {
        case .completed:
            logger.info("todos change feed: shut down")
        case .timedOut:
            logger.warning(
                "todos change feed: the shutdown timed out after \(timeout); its slot is left to the other processes' sweeps"
            )
        }
    }

    /// The key of the advisory lock under which the tables are created: "todos" in ASCII.
    static var creationLock: Int64 { 0x746f_646f_73 }

    /// The schema, each statement idempotent: the previous version's `todos` gains `assignee_id`, its rows kept.
    static let schema: [PostgresQuery] = [
        "CREATE TABLE IF NOT EXISTS people (id bigserial PRIMARY KEY, name text NOT NULL)",
        """
        CREATE TABLE IF NOT EXISTS todos (id bigserial PRIMARY KEY, title text NOT NULL, project text NOT NULL, \
        priority int NOT NULL)
        """,
        """
        ALTER TABLE todos ADD COLUMN IF NOT EXISTS assignee_id bigint NULL \
        CONSTRAINT todos_assignee_id_fkey REFERENCES people(id) ON DELETE SET NULL
        """,
    ]

    public func insert<Input: RowInput>(_ inputs: [Input]) async throws -> [Input.Row] {
        let table = try _QuotedName(Input.table)
        return try await write { connection in
            var rows: [Input.Row] = []
            for input in inputs {
                let assignments = input.assignments
                var binds = PostgresBindings()
                for (_, value) in assignments { binds.append(value) }
                let columns = try assignments.map { try _QuotedName($0.column).sql }.joined(separator: ", ")
                let values = (0..<assignments.count).map { "$\($0 + 1)" }.joined(separator: ", ")
                let insert =
                    assignments.isEmpty
                    ? "INSERT INTO \(table.sql) DEFAULT VALUES"
                    : "INSERT INTO \(table.sql) (\(columns)) VALUES (\(values))"
                rows += try await Self.rows(
                    of: Input.Row.self, PostgresQuery(unsafeSQL: insert, binds: binds), on: connection,
                    logger: self.logger)
            }
            return rows
        }
    }

    public func update<Input: RowInput>(_ query: LiveQuery<Input.Row>, with input: Input) async throws -> [Input.Row] {
        let table = try _QuotedName(Input.table)
        guard let condition = try PostgresLiveTable<Input.Row>.condition(of: query) else {
            throw TodoServerError.postgREST(.filterRequired("UPDATE"))
        }
        var binds = condition.binds
        var sets: [String] = []
        for (column, value) in input.assignments {
            binds.append(value)
            sets.append("\(try _QuotedName(column).sql) = $\(binds.count)")
        }
        // An update that sets nothing answers the rows it names, as PostgREST does.
        let statement =
            sets.isEmpty
            ? "SELECT * FROM \(table.sql) WHERE \(condition.sql)"
            : "UPDATE \(table.sql) SET \(sets.joined(separator: ", ")) WHERE \(condition.sql)"
        let query = PostgresQuery(unsafeSQL: statement, binds: binds)
        return try await write { connection in
            try await Self.rows(of: Input.Row.self, query, on: connection, logger: self.logger)
        }
    }

    public func delete<Row: TableRow>(_ query: LiveQuery<Row>) async throws -> [Row] {
        let table = try _QuotedName(Row.table)
        guard let condition = try PostgresLiveTable<Row>.condition(of: query) else {
            throw TodoServerError.postgREST(.filterRequired("DELETE"))
        }
        return try await write { connection in
            try await Self.rows(
                of: Row.self,
                PostgresQuery(unsafeSQL: "DELETE FROM \(table.sql) WHERE \(condition.sql)", binds: condition.binds),
                on: connection, logger: self.logger)
        }
    }

    /// Runs `body` in a transaction within ``queryTimeout``, then wakes the feed; a failure is logged with its
    /// cause and thrown as the server's error (PostgreSQL's own for a refused write: a foreign key, a
    /// constraint).
    private func write<Result: Sendable>(
        _ body: @escaping @Sendable (PostgresConnection) async throws -> Result
    ) async throws -> Result {
        try await boundedWrite { client in
            try await client.withTransaction(logger: self.logger) { connection in try await body(connection) }
        }
    }

    /// Runs a write, `body`, within ``queryTimeout``, then wakes the feed so that the write reaches the live
    /// queries without waiting for its idle back-off; a failure is logged with its cause and thrown as the
    /// server's error: ``TodoServerError/unavailable(_:)`` when the database was out of reach, PostgreSQL's
    /// own for a refused write (a foreign key, a constraint). For writes the application sends through
    /// another client of the same database (Fluent's).
    ///
    /// - Parameter body: The write, given the store's client (which it need not use).
    /// - Returns: What `body` returned.
    /// - Complexity: `body`'s, and two tasks for the timeout.
    public func boundedWrite<Result: Sendable>(
        _ body: @escaping @Sendable (PostgresClient) async throws -> Result
    ) async throws -> Result {
        do {
            let result = try await client.withTimeout(queryTimeout, body)
            feed?.wake()
            return result
        } catch let error as TodoServerError {
            throw error
        } catch {
            let failure = DatabaseFailure(error)
            logger.error("database write failed", metadata: ["cause": "\(failure.cause)"])
            throw failure.serverError
        }
    }

    /// The rows a statement returns (`RETURNING *`, or a `SELECT *`), by id, decoded from their JSON.
    private static func rows<Row: Decodable>(
        of row: Row.Type, _ statement: PostgresQuery, on connection: PostgresConnection, logger: Logger
    ) async throws -> [Row] {
        let returning = statement.sql.hasPrefix("SELECT") ? statement.sql : statement.sql + " RETURNING *"
        let query = PostgresQuery(
            unsafeSQL: "WITH written AS (\(returning)) SELECT row_to_json(written)::text FROM written ORDER BY id",
            binds: statement.binds)
        let decoder = JSONDecoder()
        return try await connection.query(query, logger: logger).collect().map { row in
            try decoder.decode(Row.self, from: Data(try row.decode(String.self).utf8))
        }
    }

    public func checkHealth() async throws {
        _ = try await rows("SELECT 1")
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

    /// Logs what the listening connection does: its failures and its returns are what a database outage
    /// looks like from here.
    private static func log(_ event: PostgresListenerEvent, to logger: Logger) {
        switch event {
        case .connectionFailed, .rowFetchFailed: logger.warning("todos listener: \(event)")
        case .listening, .stopped: logger.info("todos listener: \(event)")
        }
    }
}
