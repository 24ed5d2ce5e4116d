import PostgresNIO

extension PostgresChangeFeed {
    /// How a ``PostgresChangeFeed`` reads its slot.
    public enum Transport: Sendable {
        /// `pg_logical_slot_peek_binary_changes` and `pg_replication_slot_advance` on one of the client's pooled
        /// connections, every ``PostgresChangeFeed/readInterval`` while changes come (the default).
        ///
        /// It needs nothing but the client. Each read decodes the log again from the slot's restart position,
        /// which PostgreSQL moves about every 15 seconds: at thousands of transactions per second that costs the
        /// server a large part of a core, and the writers some of their throughput (see the *PostgreSQL* article).
        case sqlFunctions
        /// The streaming replication protocol (`START_REPLICATION`), on a connection of the feed's own that it
        /// opens with `configuration` in replication mode (`replication=database`): PostgreSQL pushes each
        /// transaction once its commit is flushed, and decodes the log once.
        ///
        /// The configuration names the same server, role and database as the client (a client's configuration
        /// cannot be read back from it): a host and port, or a Unix socket path, the credentials, and TLS. The
        /// role needs the `REPLICATION` attribute (or superuser), which ``PostgresChangeFeed/setUp(tables:schema:)``
        /// checks, and `pg_hba.conf` must let it connect: a `host` or `local` line for the database applies to
        /// replication connections in database mode.
        ///
        /// A transaction is delivered as soon as it arrives after a quiet spell; while transactions keep coming,
        /// those that arrived within ``PostgresChangeFeed/readInterval`` are delivered together, so that a busy
        /// table wakes the feed and its controllers once per interval rather than once per transaction.
        /// ``PostgresChangeFeed/maximumReadInterval`` and ``PostgresChangeFeed/chunkSize`` do not apply: the server
        /// sends each transaction once its commit is flushed, and stops sending while the feed is behind (memory is
        /// bounded by the largest transaction). A connection that hears nothing for 15 seconds, not even an answer
        /// to a ping sent after 5, is taken for dead and opened again. ``PostgresChangeFeed/wake()`` has nothing
        /// to do: a stream does not back off.
        case replicationProtocol(PostgresConnection.Configuration)
    }
}
