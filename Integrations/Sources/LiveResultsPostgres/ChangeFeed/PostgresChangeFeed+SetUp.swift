import Logging
import NIOConcurrencyHelpers
import PostgresNIO

extension PostgresChangeFeed {
    /// Creates the feed's publication for `tables`, or adds those it lacks; checks the server first.
    ///
    /// Before anything is installed, checks that `wal_level` is `logical`, that the role has `REPLICATION`
    /// (or is a superuser), that it owns each table (a publication can only name its owner's tables), that each
    /// table has a primary key or a replica identity, and, unless the feed's named slot exists already, that a
    /// replication slot is free. Each failure is a ``PostgresLiveTableError`` that names the setting or the
    /// privilege and how to fix it. A feed that reads a replication stream also needs a free replication
    /// connection (`max_wal_senders`). Idempotent: call it at every start, and again with a table to add.
    ///
    /// ```swift
    /// try await feed.setUp(tables: ["todos", "projects"])
    /// ```
    ///
    /// - Parameters:
    ///   - tables: The tables' names, as PostgreSQL stores them (quoted for you).
    ///   - schema: Their schema; `nil` (the default) finds them on the `search_path`.
    /// - Complexity: A few catalog queries per table.
    public func setUp(tables: [String], schema: String? = nil) async throws {
        let publication = try publicationName.get()
        // A named slot's name is checked now, rather than by the reading task's first attempt.
        if case .named = slot { _ = try slotName() }
        let schema = try schema.map { name throws(PostgresLiveTableError) in try _QuotedIdentifier(name) }
        var qualified: [(name: String, sql: String)] = []
        for name in tables {
            qualified.append((name, (schema.map { $0.sql + "." } ?? "") + (try _QuotedIdentifier(name)).sql))
        }
        let walLevel =
            try await client.query("SELECT current_setting('wal_level')", logger: _silentLogger)
            .collect().first?.decode(String.self) ?? ""
        guard walLevel == "logical" else { throw PostgresLiveTableError.walLevelNotLogical(current: walLevel) }
        let role = try await client.query(
            "SELECT current_user::text, rolsuper, rolreplication FROM pg_roles WHERE rolname = current_user",
            logger: _silentLogger
        ).collect().first?.decode((String, Bool, Bool).self)
        guard let (roleName, isSuperuser, canReplicate) = role, isSuperuser || canReplicate else {
            throw PostgresLiveTableError.missingReplicationPrivilege(role: role?.0 ?? "current_user")
        }
        for table in qualified {
            let row = try await client.query(
                """
                SELECT c.relreplident::text,
                EXISTS (SELECT 1 FROM pg_index i WHERE i.indrelid = c.oid AND i.indisprimary),
                pg_has_role(c.relowner, 'USAGE')
                FROM pg_class c WHERE c.oid = to_regclass(\(table.sql))
                """, logger: _silentLogger
            ).collect().first?.decode((String, Bool, Bool).self)
            guard let (identity, hasPrimaryKey, owns) = row else {
                throw PostgresLiveTableError.tableNotFound(table.sql)
            }
            guard owns || isSuperuser else {
                throw PostgresLiveTableError.notTableOwner(table: table.name, role: roleName)
            }
            // 'd' (default: the primary key), 'i' (an index), 'f' (full), 'n' (nothing).
            guard identity == "i" || identity == "f" || (identity == "d" && hasPrimaryKey) else {
                throw PostgresLiveTableError.noReplicaIdentity(table: table.name)
            }
        }
        try await checkFreeSlot()
        if case .replicationProtocol = transport { try await checkFreeWalSender() }
        try await createPublication(publication, tables: qualified.map(\.sql))
    }

    /// Throws ``PostgresLiveTableError/replicationSlotsExhausted(maximum:)`` when the feed would need a new
    /// slot and none is free.
    private func checkFreeSlot() async throws {
        let existing: String? = if case .named(let name) = slot { name } else { nil }
        let row = try await client.query(
            """
            SELECT current_setting('max_replication_slots')::int, (SELECT count(*)::int FROM pg_replication_slots),
            EXISTS (SELECT 1 FROM pg_replication_slots WHERE slot_name = \(existing))
            """, logger: _silentLogger
        ).collect().first?.decode((Int, Int, Bool).self)
        guard let (maximum, used, exists) = row, !exists else { return }
        guard used < maximum else { throw PostgresLiveTableError.replicationSlotsExhausted(maximum: maximum) }
    }

    /// Throws ``PostgresLiveTableError/walSendersExhausted(maximum:)`` when no replication connection is free for
    /// the feed's stream (one this feed already has counts as free: `setUp` may be called again).
    private func checkFreeWalSender() async throws {
        let row = try await client.query(
            """
            SELECT current_setting('max_wal_senders')::int,
            (SELECT count(*)::int FROM pg_stat_activity WHERE backend_type = 'walsender')
            """, logger: _silentLogger
        ).collect().first?.decode((Int, Int).self)
        guard let (maximum, used) = row else { return }
        let own = machine.withLockedValue { $0.isStreaming } ? 1 : 0
        guard used - own < maximum else { throw PostgresLiveTableError.walSendersExhausted(maximum: maximum) }
    }

    /// Creates the publication, or adds the tables it lacks, in one transaction that concurrent setups wait for.
    private func createPublication(_ publication: _QuotedIdentifier, tables: [String]) async throws {
        try await client.withConnection { connection in
            try await connection.query("BEGIN", logger: _silentLogger)
            do {
                try await connection.query(
                    "SELECT pg_advisory_xact_lock(hashtext('liveresults_publication'), hashtext(\(publication.name)))",
                    logger: _silentLogger)
                let exists =
                    try await connection.query(
                        "SELECT EXISTS (SELECT 1 FROM pg_publication WHERE pubname = \(publication.name))",
                        logger: _silentLogger
                    ).collect().first?.decode(Bool.self) ?? false
                if !exists {
                    let list = tables.joined(separator: ", ")
                    try await connection.query(
                        PostgresQuery(unsafeSQL: "CREATE PUBLICATION \(publication.sql) FOR TABLE \(list)"),
                        logger: _silentLogger)
                } else {
                    for table in tables {
                        let published =
                            try await connection.query(
                                """
                                SELECT EXISTS (SELECT 1 FROM pg_publication_rel r JOIN pg_publication p ON p.oid = r.prpubid
                                WHERE p.pubname = \(publication.name) AND r.prrelid = to_regclass(\(table)))
                                """, logger: _silentLogger
                            ).collect().first?.decode(Bool.self) ?? false
                        guard !published else { continue }
                        try await connection.query(
                            PostgresQuery(unsafeSQL: "ALTER PUBLICATION \(publication.sql) ADD TABLE \(table)"),
                            logger: _silentLogger)
                    }
                }
                try await connection.query("COMMIT", logger: _silentLogger)
            } catch {
                // A connection that failed is closed before it goes back to the pool (see the reading task).
                do {
                    try await connection.query("ROLLBACK", logger: _silentLogger)
                } catch {
                    try? await connection.close()
                }
                throw error
            }
        }
    }
}
