import Logging
import PostgresNIO

extension PostgresLiveTable {
    /// Installs the trigger that announces the table's committed changes on ``channel``; idempotent.
    ///
    /// It creates (or replaces) one trigger function per table and channel, `liveresults_notify_<hash>` in
    /// the table's schema, and three triggers on the table: `AFTER INSERT OR UPDATE OR DELETE … FOR EACH
    /// ROW`, which only counts the transaction's changed rows; a deferred constraint trigger on the same
    /// events, which at commit sends one notification per changed row (`pg_notify`, two for an update
    /// that changes the id), the last one marked as the transaction's end; and `AFTER TRUNCATE`, which
    /// makes subscribers refetch. It drops the `commit` trigger of payload format 1 if there is one. All in
    /// one transaction, under an advisory lock, so that processes installing it at once do not collide.
    /// The role needs the right to create functions in the schema and triggers on the table. The
    /// transaction, connection included, is bounded by ``queryTimeout``.
    ///
    /// - Throws: The server's error (a missing table or id column, a missing right),
    ///   ``PostgresLiveTableError/timedOut(after:)``, or ``PostgresLiveTableError/invalidIdentifier(_:reason:)``.
    /// - Complexity: One transaction of ten statements; no row is read.
    public func installTrigger() async throws {
        try await run(_TriggerSQL.install(names.get()))
    }

    /// Removes what ``installTrigger()`` installed: the table's three triggers and the trigger function.
    /// Removing what is not there is no error.
    ///
    /// - Throws: The server's error, or ``PostgresLiveTableError/invalidIdentifier(_:reason:)``.
    /// - Complexity: One transaction of five statements.
    public func removeTrigger() async throws {
        try await run(_TriggerSQL.remove(names.get()))
    }

    /// Runs `statements` in one transaction.
    private func run(_ statements: [PostgresQuery]) async throws {
        try await connecting { [self] connected in
            try await client.withTimeout(queryTimeout) { client in
                try await client.withTransaction(logger: _silentLogger) { connection in
                    connected()
                    for statement in statements {
                        try await connection.query(statement, logger: _silentLogger)
                    }
                }
            }
        }
    }
}
