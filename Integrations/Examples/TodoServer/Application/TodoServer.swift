import Hummingbird
import HummingbirdCore
import HummingbirdWebSocket
import LiveResultsHummingbird
import NIOCore
import Logging
import ServiceLifecycle
import TodoApp
import UnixSignals

/// The server example: its options, and running it until SIGTERM or SIGINT.
public struct TodoServer: Sendable {
    /// Where the server listens and keeps its to-dos, and its bounds.
    public typealias Configuration = TodoConfiguration

    public var configuration: Configuration
    /// Where the server reports, answered at `GET /metrics`.
    public var metrics: TodoMetrics
    public var logger: Logger

    public init(
        configuration: Configuration, metrics: TodoMetrics = TodoMetrics(),
        logger: Logger = Logger(label: "LiveResultsServer")
    ) {
        self.configuration = configuration
        self.metrics = metrics
        self.logger = logger
    }

    /// Runs the server until a graceful shutdown (SIGTERM, SIGINT): the streams close, then the store (its change
    /// feed drops its temporary replication slot), then the process.
    /// `onRunning` gets the port it listens on (the one asked for, or the one the system chose for 0).
    ///
    /// A graceful shutdown that takes longer than ``Configuration/shutdownTimeout`` is escalated to
    /// cancellation. With PostgreSQL, the server starts only once the table is ready; a database that
    /// cannot be reached within ``Configuration/queryTimeout`` fails the start with the reason.
    public func run(onRunning: @escaping @Sendable (Int) async -> Void = { _ in }) async throws {
        try await configuration.withStore(logger: logger) { store in
            // The routes are made where the store's type is concrete, so that the events of every live query run
            // the library's generic code specialized for it: made in `serve` for `some TodoStore`, which is
            // compiled once for any store, they ran it unspecialized, at about 15 times the cost per change.
            switch store {
            case let store as PostgresTodoStore: try await serve(store, onRunning: onRunning)
            case let store as MemoryTodoStore: try await serve(store, onRunning: onRunning)
            default: try await serve(store, onRunning: onRunning)
            }
        }
    }

    private func serve(
        _ store: some TodoStore, onRunning: @escaping @Sendable (Int) async -> Void
    ) async throws {
        let options = TodoTables.options(configuration, store: store, metrics: metrics)
        let (router, endpoint, peopleEndpoint) = try TodoRoutes.router(
            store, options: options, metrics: metrics, maximumLimit: configuration.maximumLimit,
            allowedHosts: configuration.allowedHosts, allowedOrigins: configuration.allowedOrigins)
        let idleTimeout = TimeAmount.nanoseconds(TodoConfiguration.nanoseconds(configuration.idleTimeout))
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
        // Shut down in the reverse order: the endpoints after the application, so that their streams end first
        // (WebSockets with 1001, going away); the store first, so that its change feed stops (and drops its slot)
        // last, once nothing follows it.
        var services = ServiceGroupConfiguration(
            services: [
                TodoStoreService(store: store, timeout: configuration.shutdownTimeout), app, endpoint, peopleEndpoint,
            ],
            gracefulShutdownSignals: [.sigterm, .sigint], logger: logger)
        services.maximumGracefulShutdownDuration = configuration.shutdownTimeout
        try await ServiceGroup(configuration: services).run()
    }
}
