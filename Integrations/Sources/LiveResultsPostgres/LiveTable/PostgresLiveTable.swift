import Foundation
import LiveResults
import PostgresNIO

/// A PostgreSQL table's rows as live results: fetch definitions for its rows, a trigger that announces
/// every committed change with `NOTIFY`, and an `EventSource` that `LISTEN`s for them.
///
/// Each row decodes into `Entity` from its `row_to_json` form, with ``decoder``: the JSON object's keys
/// are the column names, its values the columns' JSON forms.
///
/// ```swift
/// let todos = PostgresLiveTable<Todo>(client: client, table: "todos", idColumn: "id")
/// try await todos.installTrigger()        // once per table and channel; idempotent
/// let controller = FetchedResultsController(
///     definition: todos.fetchDefinition(), sortDescriptors: [SortDescriptor(\Todo.priority)])
/// let subscription = controller.observe(todos)   // LISTEN on its own connection
/// try await controller.performFetch()
/// ```
///
/// Nothing is lost, only coalesced: the rows one transaction changed arrive as one batch of events (one
/// change set); a row too large for a notification is fetched; after a lost connection the subscription
/// reconnects with ``reconnectBackoff`` and sends `EntityEvent.invalidated`, so the
/// controller refetches and its change set says what changed meanwhile. A fetch waits until every
/// subscription's first `LISTEN` has succeeded (or failed), so that a row committed while the first
/// fetch runs reaches the controller; a subscription that starts after a fetch of this table began
/// sends `EntityEvent.invalidated` when it starts listening, for the same reason.
///
/// Table, schema, column and channel names are quoted identifiers (capitals, spaces and quotes keep
/// their meaning); values are always bound parameters. See the *PostgreSQL* article for the trigger,
/// the notification payload and the decisions behind them.
public final class PostgresLiveTable<Entity: FetchableEntity & Decodable>: Sendable where Entity.ID: Decodable {
    /// The client that runs the fetches and leases the listening connections. It must be running
    /// (`await client.run()` in a task).
    public let client: PostgresClient
    /// The table's name, as PostgreSQL stores it (not quoted).
    public let table: String
    /// The table's schema, or `nil` to find the table on the connection's `search_path`.
    public let schema: String?
    /// The column that holds each row's id; its JSON form decodes into `Entity.ID`.
    public let idColumn: String
    /// Where the subscriptions learn of committed changes: the trigger's notifications (the default) or a
    /// ``PostgresChangeFeed``.
    public let changes: PostgresChangeSource
    /// The notification channel the trigger notifies and the subscriptions listen on (with ``changes``
    /// ``PostgresChangeSource/notifications``).
    public let channel: String
    /// Decodes rows (and ids) from their JSON form.
    public let decoder: JSONDecoder
    /// How long a subscription waits before it tries again to listen after a lost connection.
    public let reconnectBackoff: Backoff
    /// The longest wait for any query the table sends (a fetch, a refetch of rows too large for their
    /// notification, the trigger's installation, `LISTEN`), connection included; past it the query throws
    /// ``PostgresLiveTableError/timedOut(after:)``. See `PostgresClient.withTimeout(_:_:)`.
    public let queryTimeout: Duration
    /// What ``client`` logged about its connection attempts, when the client was created with its
    /// logger: operations waiting for a connection then fail with the reason of a failed attempt.
    public let diagnostics: PostgresConnectionDiagnostics?

    let names: Result<_TableNames, PostgresLiveTableError>
    let listenerEvents: (@Sendable (PostgresListenerEvent) -> Void)?
    let coordination = _FetchCoordination()
    /// Whether a fetch of the table ran: a subscription to a feed that starts later refetches once.
    let hasFetched = _Flag()
    /// The barriers of ``synchronize()`` through the table's notifications.
    let notificationBarriers = _NotificationBarriers()
    /// The rounds of ``synchronize()``, shared by its concurrent callers.
    let synchronization = _SharedRound()

    /// Creates the live form of a table. Nothing is sent to the server until it is used.
    ///
    /// - Parameters:
    ///   - client: The client that runs the fetches and leases one connection per subscription for
    ///     `LISTEN`. It must be running.
    ///   - table: The table's name, as PostgreSQL stores it (`"Todo Items"` is a table with a capital and
    ///     a space; it is quoted for you).
    ///   - idColumn: The column whose value is each row's id; `"id"` by default.
    ///   - changes: Where subscriptions learn of changes: ``PostgresChangeSource/notifications`` (the trigger
    ///     and `LISTEN`, the default) or ``PostgresChangeSource/replication(_:)`` (a ``PostgresChangeFeed``).
    ///   - schema: The table's schema; `nil` (the default) finds it on the `search_path`.
    ///   - channel: The notification channel; by default `liveresults_` followed by the schema-qualified
    ///     table name (or, when that is longer than 63 bytes or a name has a dot, by a hash of the names;
    ///     schema `public` counts as none).
    ///   - decoder: Decodes each row's `row_to_json` object into an `Entity`; a plain `JSONDecoder` by default.
    ///   - reconnectBackoff: The waits between attempts to listen again after a lost connection;
    ///     0.1 second doubling up to 10 seconds, with jitter, by default.
    ///   - queryTimeout: The longest wait for each query; `PostgresClient.defaultQueryTimeout` (10 seconds)
    ///     by default.
    ///   - diagnostics: The recorder of the client's connection attempts, when the client was created with
    ///     its ``PostgresConnectionDiagnostics/backgroundLogger(forwardingTo:)``: a fetch, the trigger's
    ///     installation or a listening attempt that waits for a connection then fails as soon as an attempt
    ///     fails, with ``PostgresLiveTableError/connectionFailed(reason:)``, instead of waiting for the
    ///     client's circuit breaker (60 seconds, and no reason). `nil` by default.
    ///   - listenerEvents: Receives what the listening connections do (see ``PostgresListenerEvent``).
    ///
    /// A name PostgreSQL would not keep as written (empty, over 63 bytes, with a NUL) makes every
    /// operation throw ``PostgresLiveTableError/invalidIdentifier(_:reason:)``.
    public init(
        client: PostgresClient,
        table: String,
        idColumn: String = "id",
        changes: PostgresChangeSource = .notifications,
        schema: String? = nil,
        channel: String? = nil,
        decoder: JSONDecoder = JSONDecoder(),
        reconnectBackoff: Backoff = Backoff(initialDelay: .milliseconds(100), maximumDelay: .seconds(10), jitter: 0.5),
        queryTimeout: Duration = PostgresClient.defaultQueryTimeout,
        diagnostics: PostgresConnectionDiagnostics? = nil,
        listenerEvents: (@Sendable (PostgresListenerEvent) -> Void)? = nil
    ) {
        let channel = channel ?? Self.defaultChannel(schema: schema, table: table)
        self.client = client
        self.table = table
        self.schema = schema
        self.idColumn = idColumn
        self.changes = changes
        self.channel = channel
        self.decoder = decoder
        self.reconnectBackoff = reconnectBackoff
        self.queryTimeout = queryTimeout
        self.diagnostics = diagnostics
        self.listenerEvents = listenerEvents
        self.names = Result { () throws(PostgresLiveTableError) in
            try _TableNames(schema: schema, table: table, idColumn: idColumn, channel: channel)
        }
    }

    /// `liveresults_` and the schema-qualified table name, or a hash of the names when that is too long
    /// for a channel or would be ambiguous.
    ///
    /// A dot in either name makes the readable form ambiguous (schema `a` with table `b.c`, schema `a.b`
    /// with table `c`): such names get the hash, which keeps them apart. Schema `public` counts as no
    /// schema, so that one table named with and without it has one channel.
    static func defaultChannel(schema: String?, table: String) -> String {
        let schema = _TableNames.normalized(schema: schema)
        let readable = "liveresults_" + (schema.map { "\($0)." } ?? "") + table
        let ambiguous = table.contains(".") || schema?.contains(".") == true
        guard readable.utf8.count > _QuotedIdentifier.maximumLength || ambiguous else { return readable }
        return "liveresults_" + _StableHash.hex([schema ?? "", table])
    }
}
