/// What went wrong in a ``PostgresLiveTable``: thrown by its fetches and ``PostgresLiveTable/installTrigger()``,
/// or reported as a malformed event to the subscriber of its notifications.
public enum PostgresLiveTableError: Error, Sendable, CustomStringConvertible {
    /// A table, schema, column or channel name that PostgreSQL would not keep as written: empty, longer
    /// than 63 bytes (PostgreSQL shortens it silently) or with a NUL character.
    case invalidIdentifier(String, reason: String)
    /// A row did not decode into the entity (a `NULL` in a non-optional property, a column of another
    /// type). `id` is the row's id as PostgreSQL prints it, when known.
    case undecodableRow(id: String?, underlying: any Error)
    /// A notification on the table's channel is not one the trigger sends: not JSON, or without the
    /// fields of the payload format (see the *PostgreSQL* article). `payload` is its first 200 characters.
    case malformedNotification(payload: String, underlying: (any Error)?)
    /// A notification names an operation the trigger does not send.
    case unknownOperation(String)
    /// A notification's `id` did not decode into the entity's id type.
    case undecodableID(underlying: any Error)
    /// The client could not connect while a fetch, the trigger's installation or a listening connection
    /// waited for one: `reason` is the failed attempt's error as postgres-nio describes it, with the
    /// server's fields (a wrong password, an unknown database) or the socket's (a refused connection).
    /// Only a table given ``PostgresConnectionDiagnostics`` learns the reason.
    case connectionFailed(reason: String)
    /// PostgreSQL did not answer within the timeout (``PostgresLiveTable/queryTimeout``, or the one given
    /// to `PostgresClient.withTimeout(_:_:)`): the server is down or restarting, the network
    /// is cut, or a connection was lost under the query.
    case timedOut(after: Duration)

    /// A sentence that says what went wrong, with the underlying error.
    public var description: String {
        switch self {
        case .invalidIdentifier(let name, let reason):
            "invalid PostgreSQL identifier \(String(reflecting: name)): \(reason)"
        case .undecodableRow(let id, let underlying):
            "the row \(id.map { "with id \($0) " } ?? "")does not decode into the entity: \(String(reflecting: underlying))"
        case .malformedNotification(let payload, let underlying):
            "malformed notification \(String(reflecting: payload))\(underlying.map { ": \(String(reflecting: $0))" } ?? "")"
        case .unknownOperation(let operation):
            "notification with an unknown operation \(String(reflecting: operation))"
        case .undecodableID(let underlying):
            "the notification's id does not decode into the entity's id: \(String(reflecting: underlying))"
        case .connectionFailed(let reason):
            "connection to PostgreSQL failed: \(reason)"
        case .timedOut(let timeout):
            "PostgreSQL did not answer within \(timeout)"
        }
    }
}
