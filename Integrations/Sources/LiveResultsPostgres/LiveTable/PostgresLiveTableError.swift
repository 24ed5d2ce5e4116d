/// What went wrong in a ``PostgresLiveTable`` or a ``PostgresChangeFeed``: thrown by the table's fetches,
/// ``PostgresLiveTable/installTrigger()`` and ``PostgresChangeFeed/setUp(tables:schema:)``, or reported as a
/// malformed event to the subscriber of its notifications or of the feed.
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
    /// ``PostgresChangeFeed/setUp(tables:schema:)``: the server's `wal_level` is `current`, and logical decoding
    /// needs `logical`.
    case walLevelNotLogical(current: String)
    /// ``PostgresChangeFeed/setUp(tables:schema:)``: `role` has neither the `REPLICATION` attribute nor superuser,
    /// which replication slots need.
    case missingReplicationPrivilege(role: String)
    /// ``PostgresChangeFeed/setUp(tables:schema:)``: a publication can only name tables its creator owns, and
    /// `role` does not own `table`.
    case notTableOwner(table: String, role: String)
    /// ``PostgresChangeFeed/setUp(tables:schema:)``: every one of the server's `max_replication_slots` (`maximum`)
    /// slots is taken.
    case replicationSlotsExhausted(maximum: Int)
    /// ``PostgresChangeFeed/setUp(tables:schema:)`` of a feed that reads a replication stream: every one of the
    /// server's `max_wal_senders` (`maximum`) replication connections is taken.
    case walSendersExhausted(maximum: Int)
    /// ``PostgresChangeFeed/setUp(tables:schema:)``: `table` has no primary key and no other replica identity, so
    /// the log would not say which row an update or a delete changed (and PostgreSQL would refuse them once
    /// the table is published).
    case noReplicaIdentity(table: String)
    /// A table the feed was asked for does not exist (on the `search_path`, when no schema was given).
    case tableNotFound(String)
    /// The log's row of `table` lacks the id column's value: for a delete, the log sends only the replica
    /// identity's columns, and the id column is not among them.
    case idNotInReplicaIdentity(table: String, idColumn: String)

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
        case .walLevelNotLogical(let current):
            """
            wal_level is '\(current)', and the change feed needs 'logical': run ALTER SYSTEM SET wal_level = logical \
            and restart PostgreSQL (RDS and Aurora: set rds.logical_replication = 1 in the parameter group; Cloud \
            SQL: the flag cloudsql.logical_decoding = on)
            """
        case .missingReplicationPrivilege(let role):
            """
            the role \(String(reflecting: role)) has neither REPLICATION nor superuser, which a replication slot \
            needs: ALTER ROLE \(role) REPLICATION (RDS: GRANT rds_replication TO \(role))
            """
        case .notTableOwner(let table, let role):
            """
            the role \(String(reflecting: role)) does not own the table \(String(reflecting: table)), and only its \
            owner can add it to a publication: run setUp(tables:) as the owner, or ALTER TABLE … OWNER TO \(role)
            """
        case .replicationSlotsExhausted(let maximum):
            """
            all \(maximum) replication slots (max_replication_slots) are taken: drop unused ones \
            (SELECT pg_drop_replication_slot(slot_name) FROM pg_replication_slots WHERE NOT active) or raise \
            max_replication_slots and restart PostgreSQL
            """
        case .walSendersExhausted(let maximum):
            """
            all \(maximum) replication connections (max_wal_senders) are taken: a feed that reads a replication \
            stream needs one; raise max_wal_senders and restart PostgreSQL, or read over SQL \
            (PostgresChangeFeed's transport .sqlFunctions)
            """
        case .noReplicaIdentity(let table):
            """
            the table \(String(reflecting: table)) has no primary key and no replica identity, so the log cannot \
            say which row changed: add a primary key, or ALTER TABLE … REPLICA IDENTITY USING INDEX (a unique \
            index) or REPLICA IDENTITY FULL
            """
        case .tableNotFound(let table):
            "the table \(table) does not exist"
        case .idNotInReplicaIdentity(let table, let idColumn):
            """
            the log's row of \(String(reflecting: table)) has no value for the id column \
            \(String(reflecting: idColumn)): make it part of the table's replica identity (its primary key)
            """
        }
    }
}
