import Foundation
import Hummingbird
import HummingbirdCore
import HummingbirdWebSocket
import LiveResultsHummingbird
import LiveResultsPostgres
import NIOCore
import Logging
import PostgresNIO
import ServiceLifecycle
import UnixSignals

/// The server example: its options, and running it until SIGTERM or SIGINT.
public struct TodoServer: Sendable {
    /// Where the server listens and keeps its to-dos, and its bounds.
    public struct Configuration: Sendable, Equatable {
        public var host = "127.0.0.1"
        public var port = 8080
        /// `postgres://user:password@host:port/database`; `nil` keeps the to-dos in memory.
        public var postgresURL: String?
        /// The longest wait for each database query, connection included; a write that waits longer is
        /// answered `503` with `Retry-After`. 10 seconds by default.
        public var queryTimeout: Duration = PostgresClient.defaultQueryTimeout
        /// How long a graceful shutdown (SIGTERM, SIGINT) may take: then what is left is cancelled. 10
        /// seconds by default.
        public var shutdownTimeout: Duration = .seconds(10)
        /// How long a connection may stay idle, or take to send a request's head and body, before it is
        /// closed; a stream that is being answered is not idle. 30 seconds by default.
        public var idleTimeout: Duration = .seconds(30)
        /// The `Host` names requests may name (with or without the port); empty, the default: any.
        public var allowedHosts: Set<String> = []
        /// The origins besides the server's own that may write; none by default.
        public var allowedOrigins: Set<String> = []
        /// The largest window of `/todos` a client may ask for, and the window of a request without `limit`;
        /// 500 by default.
        public var maximumLimit = TodoRoutes.defaultMaximumLimit
        /// The most live queries of `/todos` at once; one more, when every one is streamed, gets `503`. 1,000
        /// by default.
        public var maximumLiveQueries = 1_000
        /// The most streams (Server-Sent Events and WebSocket together) open at once on `/todos`, and as many on
        /// `/people`; one more gets `503`. 1,000 by default (see `LiveResultsOptions.maximumStreams` for what a
        /// stream costs).
        public var maximumStreams = 1_000
        /// How the PostgreSQL store learns of changes: `notify` (the trigger and `LISTEN`, the default) or
        /// `wal` (the write-ahead log, through a `PostgresChangeFeed`; the server needs `wal_level = logical`).
        public var changes: PostgresTodoStore.Changes

        public init(
            host: String = "127.0.0.1", port: Int = 8080, postgresURL: String? = nil,
            changes: PostgresTodoStore.Changes = .notify
        ) {
            self.host = host
            self.port = port
            self.postgresURL = postgresURL
            self.changes = changes
        }
    }

    public var configuration: Configuration
    public var logger: Logger

    public init(configuration: Configuration, logger: Logger = Logger(label: "LiveResultsServer")) {
        self.configuration = configuration
        self.logger = logger
    }

    /// Runs the server until a graceful shutdown (SIGTERM, SIGINT): the streams close, then the process.
    /// `onRunning` gets the port it listens on (the one asked for, or the one the system chose for 0).
    ///
    /// A graceful shutdown that takes longer than ``Configuration/shutdownTimeout`` is escalated to
    /// cancellation. With PostgreSQL, the server starts only once the table is ready; a database that
    /// cannot be reached within ``Configuration/queryTimeout`` fails the start with the reason.
    public func run(onRunning: @escaping @Sendable (Int) async -> Void = { _ in }) async throws {
        guard let url = configuration.postgresURL else {
            try await serve(try await MemoryTodoStore(), onRunning: onRunning)
            return
        }
        let diagnostics = PostgresConnectionDiagnostics()
        let client = PostgresClient(
            configuration: try Self.postgresConfiguration(url),
            backgroundLogger: diagnostics.backgroundLogger(forwardingTo: logger))
        try await withThrowingDiscardingTaskGroup { group in
            Self.startRunning(client, in: &group)
            let store: PostgresTodoStore
            do {
                store = try await PostgresTodoStore(
                    client: client, changes: configuration.changes,
                    replication: try Self.connectionConfiguration(url), queryTimeout: configuration.queryTimeout,
                    logger: logger)
            } catch {
                throw StartFailure(error, lastConnectionFailure: diagnostics.lastConnectionFailure)
            }
            try await serve(store, onRunning: onRunning)
            group.cancelAll()
        }
    }

    /// Starts `client.run()` in `group`, before anything else can ask the client for a connection.
    ///
    /// A query leased before `run()` has begun makes postgres-nio log a warning ("`PostgresClient.run()`
    /// hasn't been called yet"). An ordinary child task may start after the caller's next query; an
    /// immediate one runs on the caller's thread up to its first suspension, which is after `run()` marked
    /// the client as running.
    private static func startRunning(_ client: PostgresClient, in group: inout ThrowingDiscardingTaskGroup<any Error>) {
        if #available(macOS 26, *) {
            group.addImmediateTask { await client.run() }
        } else {
            group.addTask { await client.run() }
        }
    }

    private func serve(
        _ store: some TodoStore, onRunning: @escaping @Sendable (Int) async -> Void
    ) async throws {
        var options = LiveResultsOptions()
        options.maximumLiveQueries = configuration.maximumLiveQueries
        options.maximumStreams = configuration.maximumStreams
        let (router, endpoint, peopleEndpoint) = try TodoRoutes.router(
            store, options: options, maximumLimit: configuration.maximumLimit,
            allowedHosts: configuration.allowedHosts, allowedOrigins: configuration.allowedOrigins)
        let idle = configuration.idleTimeout.components
        let idleTimeout = TimeAmount.nanoseconds(idle.seconds * 1_000_000_000 + idle.attoseconds / 1_000_000_000)
        let webSocketResponder = router.buildResponder()
        // The idle timeout bounds the first request's head too, which Hummingbird's alone does not.
        let server = HTTPServerBuilder { responder in
            RequestHeadTimeoutChannel(
                base: HTTP1WebSocketUpgradeChannel(
                    responder: responder, webSocketResponder: webSocketResponder,
                    configuration: .init(http1: .init(idleTimeout: idleTimeout))),
                timeout: idleTimeout)
        }
        let app = Application(
            router: router,
            server: server,
            configuration: .init(address: .hostname(configuration.host, port: configuration.port)),
            onServerRunning: { channel in await onRunning(channel.localAddress?.port ?? 0) },
            logger: logger)
        // The endpoint after the application: its streams end first, WebSockets with 1001 (going away).
        var services = ServiceGroupConfiguration(
            services: [app, endpoint, peopleEndpoint], gracefulShutdownSignals: [.sigterm, .sigint], logger: logger)
        services.maximumGracefulShutdownDuration = configuration.shutdownTimeout
        try await ServiceGroup(configuration: services).run()
    }

    /// A client configuration for `url`; plain connections only (the example's database is local).
    static func postgresConfiguration(_ url: String) throws -> PostgresClient.Configuration {
        let (host, port, user, password, database) = try postgresAddress(url)
        return PostgresClient.Configuration(
            host: host, port: port, username: user, password: password, database: database, tls: .disable)
    }

    /// A connection configuration for `url`, for the change feed's replication stream (`--changes wal`).
    static func connectionConfiguration(_ url: String) throws -> PostgresConnection.Configuration {
        let (host, port, user, password, database) = try postgresAddress(url)
        return PostgresConnection.Configuration(
            host: host, port: port, username: user, password: password, database: database, tls: .disable)
    }

    /// The parts of a `postgres://user[:password]@host[:port]/database` URL.
    private static func postgresAddress(
        _ url: String
    ) throws -> (host: String, port: Int, user: String, password: String?, database: String?) {
        guard let components = URLComponents(string: url), ["postgres", "postgresql"].contains(components.scheme),
            let host = components.host, !host.isEmpty, let user = components.user
        else {
            throw TodoServerError.badRequest(
                "--postgres wants postgres://user[:password]@host[:port]/database, not \(url)")
        }
        let database = String(components.path.drop { $0 == "/" })
        return (host, components.port ?? 5432, user, components.password, database.isEmpty ? nil : database)
    }
}

/// The server could not start on its database: the reason, as one sentence with PostgreSQL's own message.
struct StartFailure: Error, CustomStringConvertible {
    let description: String

    init(_ error: any Error, lastConnectionFailure: String?) {
        let reason = DatabaseFailure.describe(error)
        description =
            "the database is not ready: \(reason)"
            + (lastConnectionFailure.map { " (the last connection attempt failed: \($0))" } ?? "")
    }
}
