/// What the listening connection of a ``PostgresLiveTable`` subscription did: for logs, metrics and tests.
///
/// Pass a handler as the table's `listenerEvents`; it is called in the order things happen, from the
/// subscription's task (``rowFetchFailed(_:)`` from the task that fetches the rows).
///
/// ```swift
/// let todos = PostgresLiveTable<Todo>(client: client, table: "todos", idColumn: "id") { event in
///     logger.info("todos listener: \(event)")
/// }
/// ```
public enum PostgresListenerEvent: Sendable, CustomStringConvertible {
    /// `LISTEN` succeeded on a connection: notifications committed from now on arrive. `reconnected` is
    /// true after a lost connection, when the subscriber is also sent `EntityEvent.invalidated`.
    case listening(channel: String, reconnected: Bool)
    /// The listening connection failed, or could not be leased or opened; the subscription tries again
    /// after `retryAfter`, by its `Backoff`.
    case connectionFailed(any Error, failures: Int, retryAfter: Duration)
    /// The rows of notifications too large to carry them could not be fetched; the subscriber is sent
    /// `EntityEvent.invalidated` instead, so that it refetches.
    case rowFetchFailed(any Error)
    /// The subscription was cancelled and stopped listening.
    case stopped

    /// A short sentence that says what happened, for logs.
    public var description: String {
        switch self {
        case .listening(let channel, let reconnected):
            "listening on \(String(reflecting: channel))\(reconnected ? " again" : "")"
        case .connectionFailed(let error, let failures, let retryAfter):
            "connection failed (\(failures) in a row, retrying after \(retryAfter)): \(String(reflecting: error))"
        case .rowFetchFailed(let error):
            "fetching large rows failed: \(String(reflecting: error))"
        case .stopped:
            "stopped"
        }
    }
}
