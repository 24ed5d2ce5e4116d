import LiveResults
import Logging
import NIOCore
import PostgresNIO

extension PostgresChangeFeed {
    /// Reads the slot until the task is cancelled (the last subscription ended), reconnecting after failures.
    func read(run: Int) async {
        let reader: _FeedReader
        do {
            reader = _FeedReader(feed: self, run: run, slotName: try slotName(), publication: try publicationName.get())
        } catch {
            attemptFailed(run: run)
            subscriptions.forEach { $0.reportMalformed(error) }
            return
        }
        var failures = 0
        while !Task.isCancelled {
            do {
                try await client.withConnection { connection in
                    defer { if reader.hasRead { failures = 0 } }
                    do {
                        try await reader.read(on: connection)
                    } catch {
                        // A connection that failed, or that the reading task leaves, is closed before it goes
                        // back to the pool: postgres-nio (1.33) hands a connection the server closed to the next
                        // request, which then never completes (see `PostgresLiveTable.closeBeforeRelease`). It also
                        // ends the session's advisory lock on the slot's name.
                        try? await connection.close()
                        throw error
                    }
                }
            } catch {
                guard !Task.isCancelled else { break }
                attemptFailed(run: run)
                failures += 1
                let wait = reconnectBackoff.wait(afterFailures: failures)
                events?(.connectionFailed(error, failures: failures, retryAfter: wait))
                try? await Task.sleep(for: wait)
            }
        }
        if case .temporary = slot {
            // Not in this task, which is cancelled: the drop must run. The slot stays active until the server
            // has ended the closed connection's backend, which finishes the read it was running first (a read
            // can take seconds after a large transaction): that backend, whose slot no one else reads, is
            // terminated, and the drop tried again for up to 10 seconds. A slot left over is dropped by the
            // next feed that starts on this database.
            let name = reader.slotName
            Task { [client] in
                for _ in 0..<100 {
                    _ = try? await client.query(
                        """
                        SELECT pg_terminate_backend(active_pid) FROM pg_replication_slots
                        WHERE slot_name = \(name) AND active_pid IS NOT NULL
                        """,
                        logger: _silentLogger)
                    let dropped = try? await client.query(
                        "SELECT pg_drop_replication_slot(slot_name) FROM pg_replication_slots WHERE slot_name = \(name)",
                        logger: _silentLogger)
                    if dropped != nil { return }
                    try? await Task.sleep(for: .milliseconds(100))
                }
            }
        }
        events?(.stopped)
    }
}

/// What the reading task of one run of a ``PostgresChangeFeed`` knows across its connections: the relations
/// `pgoutput` described, and the position of the last transaction delivered.
///
/// Used by that task only, one step after another: `@unchecked Sendable` because the closure it is used in
/// (postgres-nio's `withConnection`) is one the compiler cannot see stays in that task.
final class _FeedReader: @unchecked Sendable {
    let feed: PostgresChangeFeed
    let run: Int
    let slotName: String
    /// The publication, quoted: `pgoutput` reads its `publication_names` option as a list of identifiers.
    let publication: _QuotedIdentifier
    /// Relations by OID, as the last Relation message described them.
    private var relations: [UInt32: _PgOutputMessage.Relation] = [:]
    /// The end of the last transaction delivered: a transaction read again (its confirmation was lost with
    /// the connection) is not delivered twice.
    private var delivered: UInt64 = 0
    /// Whether the run has had its slot: a slot found missing after that was dropped, not yet created.
    private var hadSlot = false
    /// Whether a read succeeded on the current connection.
    private(set) var hasRead = false

    init(feed: PostgresChangeFeed, run: Int, slotName: String, publication: _QuotedIdentifier) {
        self.feed = feed
        self.run = run
        self.slotName = slotName
        self.publication = publication
    }

    /// Gets the slot ready on `connection`, then reads it until the task is cancelled or a query fails.
    func read(on connection: PostgresConnection) async throws {
        hasRead = false
        let connection = _ClosedConnectionGuard(connection)
        try await prepareSlot(on: connection)
        while true {
            try Task.checkCancellation()
            for subscription in feed.subscriptions {
                if subscription.relation == nil { try await lookUp(subscription, on: connection) }
                subscription.flush()
            }
            // The chunk below starts after these lookups: fetches of those tables may take their snapshots.
            feed.resumeReadyFetches()
            // A fetch waits for a position: everything that committed up to the one read now is in the chunk,
            // when the chunk ends before its limit.
            let position = feed.awaitsDeliveries ? try await currentPosition(on: connection) : nil
            let changes = try await readChunk(on: connection)
            feed.advanced(to: changes < feed.chunkSize ? max(delivered, position ?? 0) : delivered)
            hasRead = true
            if changes < feed.chunkSize { try await Task.sleep(for: feed.readInterval) }
        }
    }

    /// Creates the slot when it is missing, replaces it when PostgreSQL invalidated it, and tells the feed.
    private func prepareSlot(on connection: _ClosedConnectionGuard) async throws {
        if case .temporary = feed.slot {
            // Slots of processes that ended without dropping theirs: nobody holds their advisory lock.
            try await connection.query(
                """
                SELECT pg_drop_replication_slot(slot_name) FROM pg_replication_slots
                WHERE database = current_database() AND slot_name LIKE 'liveresults\\_tmp\\_%' AND NOT active
                AND slot_name <> \(slotName) AND pg_try_advisory_lock(hashtext('liveresults_slot'), hashtext(slot_name))
                """)
            try await connection.query("SELECT pg_advisory_unlock_all()")
            try await connection.query(
                "SELECT pg_advisory_lock(hashtext('liveresults_slot'), hashtext(\(slotName)))")
        }
        let status = try await connection.query(
            "SELECT coalesce(wal_status, '') FROM pg_replication_slots WHERE slot_name = \(slotName)"
        ).first?.decode(String.self)
        var replaced: String?
        if status == "lost" {
            replaced = "PostgreSQL invalidated it (max_slot_wal_keep_size)"
            try await connection.query("SELECT pg_drop_replication_slot(\(slotName))")
        } else if status == nil, hadSlot {
            replaced = "it was dropped"
        }
        if status == nil || replaced != nil {
            try await connection.query(
                "SELECT pg_create_logical_replication_slot(\(slotName), 'pgoutput')")
        }
        hadSlot = true
        if let replaced {
            relations = [:]
            feed.events?(.slotReplaced(slot: slotName, reason: replaced))
        } else {
            feed.events?(.reading(slot: slotName, resumed: status != nil))
        }
        feed.slotReady(run: run, created: status == nil || replaced != nil, replaced: replaced != nil)
    }

    /// The position up to which the server's log can be decoded now (``PostgresChangeFeed/positionSQL``).
    private func currentPosition(on connection: _ClosedConnectionGuard) async throws -> UInt64? {
        let row = try await connection.query(PostgresQuery(unsafeSQL: "SELECT \(PostgresChangeFeed.positionSQL)")).first
        guard let text = try row?.decode(String?.self) else { return nil }
        return Self.lsn(text)
    }

    /// Finds the OID of a subscription's table (`to_regclass`, on the connection's `search_path`).
    private func lookUp(_ subscription: _FeedSubscription, on connection: _ClosedConnectionGuard) async throws {
        let oid = try await connection.query(
            "SELECT to_regclass(\(subscription.qualifiedTable))::oid::int8"
        ).first?.decode(Int64?.self)
        guard let oid, let relation = UInt32(exactly: oid) else {
            subscription.relation = 0
            subscription.reportMalformed(PostgresLiveTableError.tableNotFound(subscription.qualifiedTable))
            return
        }
        subscription.relation = relation
    }

    /// Reads up to ``PostgresChangeFeed/chunkSize`` changes (whole transactions), delivers the committed
    /// transactions not delivered yet, and confirms them. Returns the number of changes read.
    private func readChunk(on connection: _ClosedConnectionGuard) async throws -> Int {
        let rows = try await connection.query(
            """
            SELECT data FROM pg_logical_slot_peek_binary_changes(\(slotName)::name, NULL, \(Int32(clamping: feed.chunkSize)),
            'proto_version', '1', 'publication_names', \(publication.sql))
            """)
        var count = 0
        var transaction: _FeedTransaction?
        var confirm: UInt64?
        for row in rows {
            var data = try row.decode(ByteBuffer.self)
            count += 1
            let message = try _PgOutputMessage.read(&data)
            switch message {
            case .begin(let xid):
                transaction = _FeedTransaction(xid: xid)
            case .relation(let relation):
                relations[relation.oid] = relation
            case .insert(let oid, _), .update(let oid, _, _), .delete(let oid, _):
                try transaction?.add(message, relation: relation(oid))
            case .truncate(let oids):
                for oid in oids { try transaction?.add(message, relation: relation(oid)) }
            case .commit(let end):
                if let transaction, end > delivered { deliver(transaction) }
                delivered = max(delivered, end)
                confirm = end
                transaction = nil
            case .ignored:
                continue
            }
        }
        if let confirm {
            try await connection.query(
                "SELECT pg_replication_slot_advance(\(slotName)::name, \(Self.lsn(confirm))::pg_lsn)")
        }
        return count
    }

    private func relation(_ oid: UInt32) throws(_PgOutputMessage.Malformed) -> _PgOutputMessage.Relation {
        guard let relation = relations[oid] else {
            throw _PgOutputMessage.Malformed(description: "a row of relation \(oid) before its Relation message")
        }
        return relation
    }

    /// Hands each table's part of a committed transaction to its subscriptions.
    private func deliver(_ transaction: _FeedTransaction) {
        for subscription in feed.subscriptions {
            guard let oid = subscription.relation, let changes = transaction.changes[oid] else { continue }
            do {
                let items = try _FeedTransaction.items(of: changes, idColumn: subscription.idColumn)
                subscription.offer(xid: transaction.xid, items: items)
            } catch {
                subscription.reportMalformed(error)
            }
        }
    }

    /// An LSN from PostgreSQL's text form, `16/B374D848`.
    static func lsn(_ text: String) -> UInt64? {
        let parts = text.split(separator: "/")
        guard parts.count == 2, let high = UInt64(parts[0], radix: 16), let low = UInt64(parts[1], radix: 16),
            high <= UInt32.max, low <= UInt32.max
        else { return nil }
        return high << 32 | low
    }

    /// An LSN as PostgreSQL writes it: `16/B374D848`.
    static func lsn(_ value: UInt64) -> String {
        String(value >> 32, radix: 16, uppercase: true) + "/" + String(value & 0xFFFF_FFFF, radix: 16, uppercase: true)
    }
}
