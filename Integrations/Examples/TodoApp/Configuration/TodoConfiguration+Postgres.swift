import Foundation
import LiveResultsPostgres
import Logging
import PostgresNIO

extension TodoConfiguration {
    /// The tables' schema, when the store opens on PostgreSQL: created by the store itself, or by the
    /// application (Fluent's migrations) before the store opens.
    public enum Schema: Sendable {
        /// The store creates the tables when missing, and upgrades an earlier version's.
        case createdByStore
        /// `migrate` creates or upgrades the tables, run once the client runs and before the store opens.
        case migrated(by: @Sendable () async throws -> Void)
    }

    /// Runs `body` with the store this configuration names, until `body` returns: in memory, or PostgreSQL's
    /// tables through a ``PostgresTodoStore`` on a running client of its own.
    ///
    /// With PostgreSQL, the store opens only once the tables are ready; a database that cannot be reached
    /// within ``queryTimeout`` throws a ``StartFailure`` with the reason.
    ///
    /// - Parameters:
    ///   - logger: The store's and the client's logger.
    ///   - schema: Who creates the tables.
    ///   - body: What runs on the store: the server, until it stops.
    /// - Complexity: The store's opening (a fetch of the to-dos), then `body`.
    public func withStore(
        logger: Logger, schema: Schema = .createdByStore,
        _ body: (_ store: any TodoStore) async throws -> Void
    ) async throws {
        guard let url = postgresURL else {
            try await body(try await MemoryTodoStore())
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
                var createsTables = true
                if case .migrated(let migrate) = schema {
                    try await Self.migrate(on: client, within: queryTimeout, logger: logger, migrate)
                    createsTables = false
                }
                store = try await PostgresTodoStore(
                    client: client, changes: changes, createsTables: createsTables,
                    replication: try Self.connectionConfiguration(url), queryTimeout: queryTimeout, logger: logger)
            } catch {
                throw StartFailure(error, lastConnectionFailure: diagnostics.lastConnectionFailure)
            }
            try await body(store)
            group.cancelAll()
        }
    }

    /// Runs `migrate` once the database answers, under the lock the store creates its tables under: processes
    /// started at once on an empty database take turns, and each after the first finds the tables made.
    ///
    /// The database is asked first through `client`, within `timeout`, so that one out of reach fails the
    /// start with PostgreSQL's reason rather than the migrations' pool's.
    private static func migrate(
        on client: PostgresClient, within timeout: Duration, logger: Logger,
        _ migrate: @escaping @Sendable () async throws -> Void
    ) async throws {
        try await client.withTimeout(timeout) { client in _ = try await client.query("SELECT 1").collect() }
        try await client.withConnection { connection in
            // A session lock on a connection of its own: the migrations run on the application's connections.
            try await connection.query("SELECT pg_advisory_lock(\(PostgresTodoStore.creationLock))", logger: logger)
            do {
                try await migrate()
            } catch {
                _ = try? await connection.query(
                    "SELECT pg_advisory_unlock(\(PostgresTodoStore.creationLock))", logger: logger)
                throw error
            }
            try await connection.query("SELECT pg_advisory_unlock(\(PostgresTodoStore.creationLock))", logger: logger)
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

    /// A client configuration for `url`, the store's and an application's own client (Fluent's); plain
    /// connections only (the example's database is local).
    ///
    /// - Complexity: O(*n*) for a URL of *n* characters.
    public static func postgresConfiguration(_ url: String) throws -> PostgresClient.Configuration {
        let (host, port, user, password, database) = try postgresAddress(url)
        return PostgresClient.Configuration(
            host: host, port: port, username: user, password: password, database: database, tls: .disable)
    }

    /// A connection configuration for `url`: the change feed's replication stream (`--changes wal`).
    ///
    /// - Complexity: O(*n*) for a URL of *n* characters.
    public static func connectionConfiguration(_ url: String) throws -> PostgresConnection.Configuration {
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
public struct StartFailure: Error, CustomStringConvertible {
    /// The sentence: `the database is not ready: REASON`.
    public let description: String

    init(_ error: any Error, lastConnectionFailure: String?) {
        let reason = DatabaseFailure.describe(error)
        description =
            "the database is not ready: \(reason)"
            + (lastConnectionFailure.map { " (the last connection attempt failed: \($0))" } ?? "")
    }
}
