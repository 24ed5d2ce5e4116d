/// Where a ``PostgresLiveTable``'s subscriptions learn of committed changes.
public enum PostgresChangeSource: Sendable {
    /// The trigger of ``PostgresLiveTable/installTrigger()`` and `LISTEN` on its channel, one connection per
    /// subscription (the default). Needs nothing of the server, but `NOTIFY` serializes concurrent writers'
    /// commits; after a lost connection, subscribers refetch.
    case notifications
    /// The write-ahead log, read by `feed`: needs `wal_level = logical` and the `REPLICATION` privilege;
    /// costs writers next to nothing, and resumes after a lost connection without a refetch.
    case replication(PostgresChangeFeed)
}
