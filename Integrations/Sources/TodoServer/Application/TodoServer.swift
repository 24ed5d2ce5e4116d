import Foundation
import Hummingbird
import HummingbirdWebSocket
import LiveResultsHummingbird
import Logging
import PostgresNIO

/// The server example: its options, and running it until SIGTERM or SIGINT.
public struct TodoServer: Sendable {
    /// Where the server listens and keeps its to-dos.
    public struct Configuration: Sendable, Equatable {
        public var host = "127.0.0.1"
        public var port = 8080
        /// `postgres://user:password@host:port/database`; `nil` keeps the to-dos in memory.
        public var postgresURL: String?
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
    public func run(onRunning: @escaping @Sendable (Int) async -> Void = { _ in }) async throws {
        guard let url = configuration.postgresURL else {
            try await serve(try await MemoryTodoStore(), onRunning: onRunning)
            return
        }
        let client = PostgresClient(configuration: try Self.postgresConfiguration(url), backgroundLogger: logger)
        try await withThrowingDiscardingTaskGroup { group in
            group.addTask { await client.run() }
            try await serve(
                try await PostgresTodoStore(client: client, changes: configuration.changes), onRunning: onRunning)
            group.cancelAll()
        }
    }

    private func serve(
        _ store: some TodoStore, onRunning: @escaping @Sendable (Int) async -> Void
    ) async throws {
        let (router, _) = try TodoRoutes.router(store)
        let app = Application(
            router: router,
            server: .http1WebSocketUpgrade(webSocketRouter: router),
            configuration: .init(address: .hostname(configuration.host, port: configuration.port)),
            onServerRunning: { channel in await onRunning(channel.localAddress?.port ?? 0) },
            logger: logger)
        try await app.runService()
    }

    /// A client configuration for `url`; plain connections only (the example's database is local).
    static func postgresConfiguration(_ url: String) throws -> PostgresClient.Configuration {
        guard let components = URLComponents(string: url), ["postgres", "postgresql"].contains(components.scheme),
            let host = components.host, let user = components.user
        else {
            throw TodoServerError.badRequest(
                "--postgres wants postgres://user[:password]@host[:port]/database, not \(url)")
        }
        let database = String(components.path.drop { $0 == "/" })
        return PostgresClient.Configuration(
            host: host, port: components.port ?? 5432, username: user, password: components.password,
            database: database.isEmpty ? nil : database, tls: .disable)
    }
}
