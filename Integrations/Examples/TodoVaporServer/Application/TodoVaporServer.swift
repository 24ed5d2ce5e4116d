import Fluent
import FluentPostgresDriver
import Logging
import NIOCore
import TodoApp
import Vapor

/// The server example on Vapor: the same configuration, routes, answers and page as the Hummingbird one,
/// with its PostgreSQL schema made by Fluent's migrations and its writes sent through Fluent's models.
public struct TodoVaporServer: Sendable {
    /// Where the server listens and keeps its to-dos, and its bounds.
    public var configuration: TodoConfiguration
    /// Where the live routes report, answered at `GET /metrics` (with Vapor's request metrics, when `metrics` is
    /// swift-metrics' global backend: see `TodoMetrics.bootstrap()`).
    public var metrics: TodoMetrics
    /// The application's logger: its requests, its store, Vapor's and Fluent's lines.
    public var logger: Logger

    /// A server of `configuration`, reporting to `metrics`, logging to `logger`.
    ///
    /// - Complexity: O(1).
    public init(
        configuration: TodoConfiguration, metrics: TodoMetrics = TodoMetrics(),
        logger: Logger = Logger(label: "LiveResultsVaporServer")
    ) {
        self.configuration = configuration
        self.metrics = metrics
        self.logger = logger
    }

    /// Runs the server until SIGTERM or SIGINT, then shuts Vapor's application down: the streams end, the store's
    /// change feed drops its temporary replication slot, the server stops accepting, waits for what it is
    /// answering up to the configuration's `shutdownTimeout`, and closes.
    /// `onRunning` gets the port it listens on (the one asked for, or the one the system chose for 0).
    ///
    /// With PostgreSQL, Fluent's migrations create or upgrade the tables (``CreatePeople``, ``CreateTodos``,
    /// ``AddTodoAssignee``) before the store opens; a database that cannot be reached within the query
    /// timeout fails the start with the reason.
    ///
    /// - Complexity: The server's life.
    public func run(onRunning: @escaping @Sendable (Int) async -> Void = { _ in }) async throws {
        let app = try await Application.make(.production, logger: logger)
        do {
            try await serve(app, onRunning: onRunning)
        } catch {
            if !app.didShutdown { try? await app.asyncShutdown() }
            throw error
        }
    }

    private func serve(_ app: Application, onRunning: @escaping @Sendable (Int) async -> Void) async throws {
        if let url = configuration.postgresURL { try Self.useDatabase(url, on: app) }
        try await withStore(on: app) { store in
            // The routes are made where the store's type is concrete: see `TodoServer.run`.
            switch store {
            case let store as FluentTodoStore: try await listen(app, store, onRunning: onRunning)
            case let store as MemoryTodoStore: try await listen(app, store, onRunning: onRunning)
            default: try await listen(app, store, onRunning: onRunning)
            }
        }
    }

    /// The most connections Fluent's pool opens: 10, half postgres-nio's default.
    ///
    /// Fluent sends only the REST writes (one transaction each) and the migrations; the store's own client, with up to
    /// 20, reads. With the default, a process could hold 41 connections: three behind a load balancer would pass
    /// PostgreSQL's default `max_connections` (100, 3 of them for superusers) under a burst of writes, and its
    /// refusals would be writes answered `503`. With 10, three processes hold at most 93.
    public static let fluentMaximumConnections = 10

    /// Makes `url`'s database `app`'s Fluent database, with the example's migrations.
    ///
    /// Fluent's database runs on a postgres-nio `PostgresClient` of its own (Fluent's driver runs and shuts it
    /// down), not on the default configuration's AsyncKit pool. When PostgreSQL restarts, a connection the pool
    /// has just lent can be closed before a query is written to it: postgres-nio 1.33 then never completes that
    /// query, and the write is abandoned at the query timeout with its connection still lent. AsyncKit's pool
    /// (`EventLoopConnectionPool`) frees a slot only when a connection comes back, and keeps one connection per
    /// event loop by default: that loop's writes would all wait for it, answering `503` until the process
    /// restarted. `PostgresClient`'s pool drops a connection as soon as it closes, lent or not, and opens
    /// another, as it does for the store's own queries.
    ///
    /// Fluent's pool opens at most ``fluentMaximumConnections`` connections, beside the store's own client (20, as
    /// postgres-nio's default) and the change feed's replication connection.
    ///
    /// - Throws: ``TodoServerError`` for a URL that is not `postgres://user[:password]@host[:port]/database`.
    /// - Complexity: O(*n*) for a URL of *n* characters.
    public static func useDatabase(_ url: String, on app: Application) throws {
        var postgres = try TodoConfiguration.postgresConfiguration(url)
        postgres.options.maximumConnections = fluentMaximumConnections
        app.databases.use(.postgres(configuration: postgres, logger: app.logger), as: .psql)
        app.migrations.add([CreatePeople(), CreateTodos(), AddTodoAssignee()])
    }

    /// Runs `body` with the configuration's store, until it returns: with PostgreSQL, once `app`'s migrations
    /// have run (``useDatabase(_:on:)`` first), a ``FluentTodoStore`` writing through `app`'s database; else
    /// the to-dos in memory.
    ///
    /// - Complexity: The migrations and the store's opening (a fetch of the to-dos), then `body`.
    public func withStore(on app: Application, _ body: (any TodoStore) async throws -> Void) async throws {
        guard configuration.postgresURL != nil else {
            try await configuration.withStore(logger: logger, body)
            return
        }
        try await configuration.withStore(logger: logger, schema: .migrated { try await app.autoMigrate() }) { store in
            guard let postgres = store as? PostgresTodoStore else { return try await body(store) }
            try await body(FluentTodoStore(base: postgres, database: app.db))
        }
    }

    private func listen(
        _ app: Application, _ store: some TodoStore, onRunning: @escaping @Sendable (Int) async -> Void
    ) async throws {
        let server = app.http.server
        server.configuration.hostname = configuration.host
        server.configuration.port = configuration.port
        server.configuration.idleTimeout = .nanoseconds(TodoConfiguration.nanoseconds(configuration.idleTimeout))
        server.configuration.shutdownTimeout = .nanoseconds(
            TodoConfiguration.nanoseconds(configuration.shutdownTimeout))
        // Before the routes' endpoints: Vapor shuts its lifecycle's handlers down in the reverse order, so the
        // store's change feed stops (and drops its slot) once the streams have ended.
        app.lifecycle.use(TodoStoreLifecycle(store: store, timeout: configuration.shutdownTimeout))
        TodoVaporRoutes.register(store, on: app, configuration: configuration, metrics: metrics)
        // Vapor reads its commands from the environment's arguments, the process's by default, whose flags are
        // ours (swift-argument-parser's): the executable's path alone runs its default command, serve, which
        // starts the server and stops running at SIGTERM or SIGINT.
        app.environment.arguments = [app.environment.arguments.first ?? "LiveResultsVaporServer"]
        try await app.startup()
        await onRunning(server.shared.localAddress?.port ?? 0)
        try await app.running?.onStop.get()
        // Vapor's shutdown: the lifecycle's handlers first (the live queries' streams end), then the server,
        // which waits for the requests under way up to its shutdown timeout; all while the store is open.
        try await app.asyncShutdown()
    }
}
