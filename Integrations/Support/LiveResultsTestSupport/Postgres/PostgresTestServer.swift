import Foundation
import Logging
import PostgresNIO
import NIOConcurrencyHelpers

/// The PostgreSQL server the tests and benchmarks use: `LIVERESULTS_POSTGRES_URL` when it is set
/// (`postgres://user:password@host:port/database`), else one ``TemporaryPostgres`` cluster per process,
/// started on first use and stopped when the process ends.
public struct PostgresTestServer: Sendable {
    /// The server's host.
    public var host: String
    /// The server's port.
    public var port: Int
    /// The role the tests connect as; it must be able to create databases.
    public var username: String
    /// The role's password, if the server asks for one.
    public var password: String?
    /// The database to connect to for administration (creating the tests' databases).
    public var database: String
    /// The cluster, when it is a temporary one of this process.
    public var cluster: TemporaryPostgres?

    /// A server at `host` and `port`, reached as `username`.
    public init(host: String, port: Int, username: String, password: String?, database: String) {
        self.host = host
        self.port = port
        self.username = username
        self.password = password
        self.database = database
    }

    /// The server for `url` (`postgres://user:password@host:port/database`).
    public init(url: String) throws {
        guard let components = URLComponents(string: url), let host = components.host, let user = components.user
        else {
            throw TemporaryPostgres.Failure(description: "LIVERESULTS_POSTGRES_URL is not a postgres:// URL: \(url)")
        }
        let database = components.path.hasPrefix("/") ? String(components.path.dropFirst()) : components.path
        self.init(
            host: host, port: components.port ?? 5432, username: user, password: components.password,
            database: database.isEmpty ? "postgres" : database)
    }

    /// The temporary cluster `cluster`.
    public init(cluster: TemporaryPostgres) {
        self.init(
            host: cluster.host, port: cluster.port, username: cluster.username, password: cluster.password,
            database: "postgres")
        self.cluster = cluster
    }

    /// A server with PostgreSQL's default durability (`fsync` on), as users run it, for benchmarks of
    /// writers: a temporary cluster of its own (the shared one turns `fsync` off, for speed).
    ///
    /// - Throws: ``TemporaryPostgres/Failure`` when the cluster does not start.
    public static func durable() throws -> PostgresTestServer {
        PostgresTestServer(cluster: try TemporaryPostgres(settings: TemporaryPostgres.durableSettings))
    }

    private static let sharedServer = NIOLockedValueBox<Result<PostgresTestServer, TemporaryPostgres.Failure>?>(nil)

    /// The server of this process: started on first use.
    ///
    /// - Throws: ``TemporaryPostgres/Failure`` saying how to install PostgreSQL when it is missing.
    public static func shared() throws -> PostgresTestServer {
        try sharedServer.withLockedValue { server -> Result<PostgresTestServer, TemporaryPostgres.Failure> in
            if let server { return server }
            let made: Result<PostgresTestServer, TemporaryPostgres.Failure>
            do {
                if let url = ProcessInfo.processInfo.environment["LIVERESULTS_POSTGRES_URL"], !url.isEmpty {
                    made = .success(try PostgresTestServer(url: url))
                } else {
                    made = .success(PostgresTestServer(cluster: try TemporaryPostgres()))
                }
            } catch let failure as TemporaryPostgres.Failure {
                made = .failure(failure)
            } catch {
                made = .failure(TemporaryPostgres.Failure(description: "\(error)"))
            }
            server = made
            return made
        }.get()
    }

    /// The server's URL for `database` (none: the default), as the server example's `--postgres` reads it.
    public func url(database: String? = nil) -> String {
        "postgres://\(username):\(password ?? "")@\(host):\(port)/\(database ?? "")"
    }

    /// A client configuration for `database` (the administration database by default).
    public func configuration(database: String? = nil, password: String?? = nil) -> PostgresClient.Configuration {
        var configuration = PostgresClient.Configuration(
            host: host, port: port, username: username, password: password ?? self.password,
            database: database ?? self.database, tls: .disable)
        configuration.options.maximumConnections = 8
        return configuration
    }

    /// A connection configuration for the server and database of `configuration` (without TLS): what a
    /// `PostgresChangeFeed` reading a replication stream connects with.
    public static func connectionConfiguration(
        _ configuration: PostgresClient.Configuration
    ) -> PostgresConnection.Configuration {
        PostgresConnection.Configuration(
            host: configuration.host ?? "localhost", port: configuration.port ?? 5432,
            username: configuration.username, password: configuration.password, database: configuration.database,
            tls: .disable)
    }

    /// Runs `body` with a client for `configuration`, running it meanwhile; the client's background
    /// messages go to `backgroundLogger` (nowhere by default).
    public static func withClient<Result: Sendable>(
        _ configuration: PostgresClient.Configuration,
        backgroundLogger: Logger = Logger(label: "LiveResultsTestSupport", factory: { _ in SwiftLogNoOpLogHandler() }),
        _ body: @Sendable (PostgresClient) async throws -> Result
    ) async throws -> Result {
        let client = PostgresClient(configuration: configuration, backgroundLogger: backgroundLogger)
        return try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask { await client.run() }
            defer { group.cancelAll() }
            return try await body(client)
        }
    }

    /// Runs `body` with a client for a new database of its own, dropped afterwards; the client's background
    /// messages go to `backgroundLogger` (nowhere by default).
    public func withDatabase<Result: Sendable>(
        backgroundLogger: Logger = Logger(label: "LiveResultsTestSupport", factory: { _ in SwiftLogNoOpLogHandler() }),
        _ body: @Sendable (PostgresClient, PostgresClient.Configuration) async throws -> Result
    ) async throws -> Result {
        let name =
            "liveresults_\(ProcessInfo.processInfo.processIdentifier)_\(UUID().uuidString.prefix(8).lowercased())"
        let admin = configuration()
        _ = try await Self.withClient(admin) { client in
            try await client.query(PostgresQuery(unsafeSQL: "CREATE DATABASE \"\(name)\""))
        }
        let configuration = configuration(database: name)
        let result: Swift.Result<Result, any Error>
        do {
            result = .success(
                try await Self.withClient(configuration, backgroundLogger: backgroundLogger) {
                    try await body($0, configuration)
                })
        } catch {
            result = .failure(error)
        }
        _ = try? await Self.withClient(admin) { client in
            try await client.query(PostgresQuery(unsafeSQL: "DROP DATABASE IF EXISTS \"\(name)\" WITH (FORCE)"))
        }
        return try result.get()
    }
}
