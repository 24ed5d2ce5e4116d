import Logging
import NIOConcurrencyHelpers

/// Tells a ``PostgresLiveTable`` why its client cannot connect, so that a fetch fails at once with the
/// server's reason instead of after the client's circuit breaker, without one.
///
/// postgres-nio's `PostgresClient` keeps the reason a connection attempt failed (a wrong password, an
/// unknown database, a refused connection) to itself: a request waits while the pool tries again, and
/// after 60 seconds of failures it fails with `connectionCreationCircuitBreakerTripped`, which names no
/// reason. The client does log each failed attempt, with the server's error, to its background logger.
/// This type is that logger's recorder: give the client ``backgroundLogger(forwardingTo:)`` and the
/// table the diagnostics, and a fetch or a listening connection that waits for the client fails with
/// ``PostgresLiveTableError/connectionFailed(reason:)`` as soon as an attempt fails while it waits.
///
/// ```swift
/// let diagnostics = PostgresConnectionDiagnostics()
/// let client = PostgresClient(
///     configuration: configuration, backgroundLogger: diagnostics.backgroundLogger(forwardingTo: logger))
/// let todos = PostgresLiveTable<Todo>(client: client, table: "todos", diagnostics: diagnostics)
/// // With a wrong password, performFetch() throws at once and controller.state.error says:
/// // connection to PostgreSQL failed: … password authentication failed for user "app" …
/// ```
///
/// One diagnostics object serves one client, and any number of tables on it. Failures are recorded only
/// while something waits for a connection, or as ``lastConnectionFailure``.
public final class PostgresConnectionDiagnostics: Sendable {
    private struct State {
        var lastFailure: String?
        var nextWaiter = 0
        var waiters: [Int: _ConnectionWait] = [:]
    }

    private let state = NIOLockedValueBox(State())

    /// Creates diagnostics that have recorded nothing.
    public init() {}

    /// The reason of the client's last failed connection attempt, as postgres-nio describes it (with the
    /// server's fields); `nil` before any failure and after a connection succeeded again.
    public var lastConnectionFailure: String? { state.withLockedValue { $0.lastFailure } }

    /// A logger to create the `PostgresClient` with, as its `backgroundLogger`: it records the client's
    /// connection attempts and passes every message on to `logger`, at `logger`'s level.
    ///
    /// - Parameter logger: Where the client's background messages go; nowhere by default.
    /// - Returns: The logger for `PostgresClient(configuration:eventLoopGroup:backgroundLogger:)`.
    public func backgroundLogger(forwardingTo logger: Logger? = nil) -> Logger {
        let forwarded = logger ?? Logger(label: "LiveResultsPostgres", factory: { _ in SwiftLogNoOpLogHandler() })
        return Logger(label: forwarded.label) { _ in _DiagnosticLogHandler(diagnostics: self, forwarded: forwarded) }
    }

    /// Records what the client logged about a connection attempt.
    func record(message: String, error: String?) {
        switch message {
        case "Connection creation failed":
            let reason = error ?? "the connection attempt failed"
            let waiters = state.withLockedValue { state in
                state.lastFailure = reason
                return Array(state.waiters.values)
            }
            for waiter in waiters { waiter.fail(reason) }
        case "Connection established":
            state.withLockedValue { $0.lastFailure = nil }
        default:
            break
        }
    }

    /// Sends the failures of connection attempts to `wait` until it is removed.
    func add(_ wait: _ConnectionWait) -> Int {
        state.withLockedValue { state in
            defer { state.nextWaiter += 1 }
            state.waiters[state.nextWaiter] = wait
            return state.nextWaiter
        }
    }

    /// Stops sending failures to the wait `key` names.
    func remove(_ key: Int) {
        _ = state.withLockedValue { $0.waiters.removeValue(forKey: key) }
    }
}

/// Passes the client's background messages on, and records the ones about connection attempts.
struct _DiagnosticLogHandler: LogHandler {
    let diagnostics: PostgresConnectionDiagnostics
    var forwarded: Logger
    var metadata: Logger.Metadata = [:]

    /// Connection attempts are logged at `debug` (established) and `info` (failed); everything else is
    /// passed on only at the forwarded logger's own level.
    var logLevel: Logger.Level {
        get { min(forwarded.logLevel, .debug) }
        set { forwarded.logLevel = newValue }
    }

    subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    func log(event: LogEvent) {
        let error = event.metadata?["psql_error"].map { "\($0)" }
        diagnostics.record(message: event.message.description, error: error)
        guard event.level >= forwarded.logLevel else { return }
        var all = metadata
        all.merge(event.metadata ?? [:]) { $1 }
        forwarded.log(
            level: event.level, event.message, metadata: all, source: event.source, file: event.file,
            function: event.function, line: event.line)
    }
}
