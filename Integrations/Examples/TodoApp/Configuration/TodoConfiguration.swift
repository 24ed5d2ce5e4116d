import Foundation
import LiveResultsPostgres
import PostgresNIO

/// Where the server example listens and keeps its to-dos, and its bounds: the same for every framework that
/// serves it.
public struct TodoConfiguration: Sendable, Equatable {
    /// The largest body a write may send: 64 KiB (a larger one gets `413`).
    public static let maximumBodySize = 64 * 1_024

    /// The largest window of `/todos` a client may ask for, and the window of a request that names no `limit`,
    /// unless the configuration names another.
    public static let defaultMaximumLimit = 500

    /// The address to listen on; `127.0.0.1` by default.
    public var host = "127.0.0.1"
    /// The port to listen on (0 lets the system choose); 8080 by default.
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
    public var maximumLimit = defaultMaximumLimit
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

    /// A configuration of these, and the defaults for the rest.
    ///
    /// - Complexity: O(1).
    public init(
        host: String = "127.0.0.1", port: Int = 8080, postgresURL: String? = nil,
        changes: PostgresTodoStore.Changes = .notify
    ) {
        self.host = host
        self.port = port
        self.postgresURL = postgresURL
        self.changes = changes
    }

    /// `duration` in nanoseconds, for the frameworks' timeouts (NIO's `TimeAmount`).
    ///
    /// - Complexity: O(1).
    public static func nanoseconds(_ duration: Duration) -> Int64 {
        let components = duration.components
        return components.seconds * 1_000_000_000 + components.attoseconds / 1_000_000_000
    }
}
