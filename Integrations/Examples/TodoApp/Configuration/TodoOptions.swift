import ArgumentParser
import Foundation

/// The server example's command-line options, read with swift-argument-parser: `--help` prints them, and a
/// refused value ends the process with ArgumentParser's error, the usage and exit status 64.
///
/// ``configuration(environment:)`` turns them into a ``TodoConfiguration``: an option given wins, then the
/// environment's `PORT`, `HOST` and `DATABASE_URL` (when not empty), then the configuration's defaults.
public struct TodoOptions: ParsableArguments {
    @Option(help: "The port to listen on (0 lets the system choose); else $PORT, else 8080.")
    public var port: Int?

    @Option(help: ArgumentHelp("The address to listen on; else $HOST, else 127.0.0.1.", valueName: "address"))
    public var host: String?

    @Option(
        help: ArgumentHelp(
            """
            Keep the to-dos in PostgreSQL's table todos (created when missing); else $DATABASE_URL, else in \
            memory.
            """,
            valueName: "postgres://user[:password]@host[:port]/db"))
    public var postgres: String?

    @Option(
        help: ArgumentHelp(
            """
            With --postgres, how changes are learned of: notify (the trigger and LISTEN), wal (the write-ahead \
            log, read as a replication stream; needs wal_level = logical and REPLICATION) or wal-sql (the same \
            log, read over SQL).
            """,
            valueName: "notify|wal|wal-sql"))
    public var changes: PostgresTodoStore.Changes = .notify

    @Option(
        help: ArgumentHelp(
            "The longest wait for a database query, in seconds; a write past it gets 503.", valueName: "seconds"))
    public var queryTimeout = Seconds(TodoConfiguration().queryTimeout)

    @Option(
        help: ArgumentHelp(
            "How long a graceful shutdown (SIGTERM, SIGINT) may take before the server exits, in seconds.",
            valueName: "seconds"))
    public var shutdownTimeout = Seconds(TodoConfiguration().shutdownTimeout)

    @Option(
        help: ArgumentHelp(
            "How long a connection may stay idle or take to send a request, in seconds.", valueName: "seconds"))
    public var idleTimeout = Seconds(TodoConfiguration().idleTimeout)

    @Option(
        help: ArgumentHelp(
            "A Host name requests may name (repeatable; any when none is given).", valueName: "name"))
    public var allowHost: [String] = []

    @Option(
        help: ArgumentHelp(
            "An origin besides the server's own that may write, http://host:port (repeatable).",
            valueName: "origin"))
    public var allowOrigin: [String] = []

    @Option(
        help: ArgumentHelp(
            "The largest window of /todos a client may ask for, and the window without ?limit=.", valueName: "n"))
    public var maximumLimit = TodoConfiguration().maximumLimit

    @Option(
        help: ArgumentHelp(
            "The most live queries of /todos at once; one more, all streamed, gets 503.", valueName: "n"))
    public var maximumQueries = TodoConfiguration().maximumLiveQueries

    @Option(
        help: ArgumentHelp(
            """
            The most streams of /todos (and as many of /people) open at once; one more gets 503. Each holds a \
            file descriptor: raise ulimit -n to fit.
            """,
            valueName: "n"))
    public var maximumStreams = TodoConfiguration().maximumStreams

    public init() {}

    /// Refuses what the options alone rule out: a port out of range, a timeout out of range, a count below 1.
    public func validate() throws {
        if let port { _ = try Self.port(String(port), from: "--port") }
        for (name, timeout) in [
            ("--query-timeout", queryTimeout), ("--shutdown-timeout", shutdownTimeout),
            ("--idle-timeout", idleTimeout),
        ] where !timeout.isValid {
            throw ValidationError("\(name) wants a number of seconds from 0.001 to 86400, not \(timeout.text)")
        }
        for (name, count) in [
            ("--maximum-limit", maximumLimit), ("--maximum-queries", maximumQueries),
            ("--maximum-streams", maximumStreams),
        ] where count < 1 {
            throw ValidationError("\(name) wants a whole number above 0, not \(count)")
        }
    }

    /// The configuration the options ask for, the environment filling in what they leave out.
    ///
    /// - Parameter environment: The process's environment: `PORT`, `HOST` and `DATABASE_URL` stand for
    ///   `--port`, `--host` and `--postgres` when those are not given (an empty value counts as none; a `PORT`
    ///   that is not a port is refused even beside `--port`).
    /// - Returns: The server's configuration.
    /// - Throws: `ValidationError` for a `PORT` that is not a port, or `--changes` other than `notify` with
    ///   neither `--postgres` nor `DATABASE_URL`.
    /// - Complexity: O(*h* + *o*) for *h* allowed hosts and *o* allowed origins.
    public func configuration(environment: [String: String]) throws -> TodoConfiguration {
        var configuration = TodoConfiguration()
        if let value = environment["PORT"], !value.isEmpty {
            configuration.port = try Self.port(value, from: "PORT")
        }
        if let value = environment["HOST"], !value.isEmpty { configuration.host = value }
        if let value = environment["DATABASE_URL"], !value.isEmpty { configuration.postgresURL = value }
        if let port { configuration.port = port }
        if let host { configuration.host = host }
        if let postgres { configuration.postgresURL = postgres }
        configuration.changes = changes
        configuration.queryTimeout = queryTimeout.duration
        configuration.shutdownTimeout = shutdownTimeout.duration
        configuration.idleTimeout = idleTimeout.duration
        configuration.allowedHosts = Set(allowHost)
        configuration.allowedOrigins = Set(allowOrigin)
        configuration.maximumLimit = maximumLimit
        configuration.maximumLiveQueries = maximumQueries
        configuration.maximumStreams = maximumStreams
        if configuration.changes != .notify, configuration.postgresURL == nil {
            throw ValidationError("--changes \(configuration.changes.rawValue) needs --postgres")
        }
        return configuration
    }

    /// `value` as a port, or a `ValidationError` that names `source`.
    private static func port(_ value: String, from source: String) throws -> Int {
        guard let port = Int(value), (0...65_535).contains(port) else {
            throw ValidationError("\(source) wants a number from 0 to 65535, not \(value)")
        }
        return port
    }
}

extension PostgresTodoStore.Changes: ExpressibleByArgument {}
