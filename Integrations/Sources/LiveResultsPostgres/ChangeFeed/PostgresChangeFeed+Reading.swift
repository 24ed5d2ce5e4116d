import LiveResults
import Logging
import NIOCore
import PostgresNIO

extension PostgresChangeFeed {
    /// Reads the slot until the task is cancelled (the last subscription ended), reconnecting after failures.
    func read(run: Int) async {
        var reader: _FeedReader
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
                        switch transport {
                        case .sqlFunctions: try await reader.read(on: connection)
                        case .replicationProtocol(let configuration):
                            try await reader.stream(with: configuration, on: connection)
                        }
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
        await readerStopped(run: run, slotName: reader.slotName)
    }
}

/// What the reading task of one run of a ``PostgresChangeFeed`` knows across its connections: the relations
/// `pgoutput` described, and the position of the last transaction delivered.
///
/// A value owned by that task (a variable of ``PostgresChangeFeed/read(run:)``, changed by its steps in the closure
/// postgres-nio's `withConnection` runs in the task's isolation); what the feed's other callers see goes through
/// the feed's state machine.
struct _FeedReader {
    let feed: PostgresChangeFeed
    let run: Int
    let slotName: String
    /// The publication, quoted: `pgoutput` reads its `publication_names` option as a list of identifiers.
    let publication: _QuotedIdentifier
    /// Relations by OID, as the last Relation message described them.
    var relations: [UInt32: _PgOutputMessage.Relation] = [:]
    /// The end of the last transaction delivered: a transaction read again (its confirmation was lost with
    /// the connection) is not delivered twice.
    var delivered: UInt64 = 0
    /// The position up to which the slot has been read and its transactions delivered: while the server's log
    /// ends there, a read would find nothing.
    private var readThrough: UInt64 = 0
    /// The slot's confirmed position, as this run last set or found it.
    var confirmed: UInt64 = 0
    /// Whether the run has had its slot: a slot found missing after that was dropped, not yet created.
    private var hadSlot = false
    /// Whether a read succeeded on the current connection.
    var hasRead = false
    /// The transaction being read, while its messages come.
    var transaction: _FeedTransaction?
    /// Whether the transaction being read was delivered before: its rows are skipped unparsed.
    var skipping = false
    /// When the slot's position was last confirmed, on the feed's clock.
    private var lastConfirmation: Duration
    /// When the server's position was last read, on the feed's clock: at least every ``lagInterval`` while the feed
    /// reads, for its lag (``_FeedLag``).
    var lastPositionRead: Duration
    /// When to look for the temporary slots of feeds that are gone, and which of them to drop.
    var sweep: _SlotSweep

    /// The longest time delivered transactions stay unconfirmed while changes keep coming. Confirming
    /// (`pg_replication_slot_advance`) decodes the log again from the slot's restart position, as long as a read
    /// does: doing it after every read doubled the time of each step, and so the latency. Until it is done, reads
    /// return those transactions again, and the feed skips them unparsed.
    static let confirmationInterval = Duration.milliseconds(100)

    /// The longest time the feed goes without reading the server's position (over SQL while changes keep coming,
    /// as a stream at its ticks): how stale its lag can be under load.
    static let lagInterval = Duration.seconds(1)

    init(feed: PostgresChangeFeed, run: Int, slotName: String, publication: _QuotedIdentifier) {
        self.feed = feed
        self.run = run
        self.slotName = slotName
        self.publication = publication
        lastConfirmation = feed.clock.now
        lastPositionRead = feed.clock.now
        sweep = _SlotSweep(timing: feed.slotSweep, now: feed.clock.now)
    }

    /// Gets the slot ready on `connection`, then reads it until the task is cancelled or a query fails.
    ///
    /// After a read that found nothing, a step asks for the position up to which the log is written (one short
    /// query), and reads the slot only when that moved past what was read: PostgreSQL decodes the log at every read
    /// of a slot, and an idle feed would pay for that each interval. Then it confirms what it delivered, and up to that
    /// position when the read was not cut short, so that the slot moves on (and PostgreSQL frees its log) while the
    /// log has nothing for the publication: after every read that did not find changes, and otherwise once
    /// ``confirmationInterval`` passed or the transactions read again fill a quarter of a chunk.
    mutating func read(on connection: PostgresConnection) async throws {
        (hasRead, transaction, skipping) = (false, nil, false)
        let connection = _ClosedConnectionGuard(connection)
        try await prepareSlot(on: connection)
        var pacing = _ReadPacing(interval: feed.readInterval, maximum: feed.maximumReadInterval, clock: feed.clock)
        var lastRead = _ReadPacing.Read.nothing
        while true {
            try Task.checkCancellation()
            let started = pacing.startStep()
            for subscription in feed.subscriptions {
                if subscription.relation == nil { try await lookUp(subscription, on: connection) }
                subscription.flush()
            }
            // The chunk below starts after these lookups: fetches of those tables may take their snapshots.
            feed.resumeReadyFetches()
            try await sweepIfDue(on: connection)
            // Everything that committed up to this position is in the chunk when it ends before its limit. Asked
            // for when the last read found nothing (the log may not have moved since) or a fetch waits for a
            // position; while changes keep coming the log always moves, and the round trip would only add latency,
            // but for one a second, which keeps the feed's lag (``_FeedLag``) known under load.
            let asks =
                lastRead == .nothing || feed.awaitsDeliveries || started - lastPositionRead >= Self.lagInterval
            let end = asks ? try await currentPosition(on: connection) : nil
            if let end {
                lastPositionRead = started
                feed.learnedServerPosition(end)
            }
            if let end, end <= readThrough {
                lastRead = .nothing
            } else {
                let chunk = try await readChunk(upTo: end, on: connection)
                lastRead = chunk.rows >= feed.chunkSize ? .full : chunk.newRows > 0 ? .changes : .nothing
                let through = lastRead == .full ? chunk.lastCommit : max(chunk.lastCommit, end ?? 0)
                let due =
                    lastRead != .changes || chunk.rows - chunk.newRows >= feed.chunkSize / 4
                    || started - lastConfirmation >= Self.confirmationInterval
                if through > confirmed, due {
                    try await connection.query(
                        "SELECT pg_replication_slot_advance(\(slotName)::name, \(Self.lsn(through))::pg_lsn)")
                    confirmed = through
                    lastConfirmation = started
                }
                if lastRead != .full { readThrough = max(readThrough, end ?? 0) }
            }
            feed.advanced(run: run, to: lastRead == .full ? delivered : max(delivered, readThrough))
            hasRead = true
            await feed.pause(run: run, for: pacing.waitAfterStep(lastRead))
        }
    }

    /// Creates the slot when it is missing, replaces it when PostgreSQL invalidated it, and tells the feed.
    mutating func prepareSlot(on connection: _ClosedConnectionGuard) async throws {
        if case .temporary = feed.slot {
            // Held for as long as this connection lasts: what tells the other feeds' sweeps (`_SlotSweep`) that the
            // slot has an owner. Taken before the slot is touched, so that a sweep's drop and this feed's use of the
            // slot take turns.
            try await connection.query(
                "SELECT pg_advisory_lock(hashtext('liveresults_slot'), hashtext(\(slotName)))")
            // With the lock, whoever still reads the slot is this feed's own, from before a lost connection (a
            // walsender the server has not yet found dead, or a read that had not finished): it would hold the
            // slot until then.
            try await connection.query(
                """
                SELECT pg_terminate_backend(active_pid) FROM pg_replication_slots
                WHERE slot_name = \(slotName) AND active_pid IS NOT NULL AND active_pid <> pg_backend_pid()
                """)
        }
        sweep.reconnected(now: feed.clock.now)
        let found = try await connection.query(
            """
            SELECT coalesce(wal_status, ''), coalesce(confirmed_flush_lsn::text, '')
            FROM pg_replication_slots WHERE slot_name = \(slotName)
            """
        ).first?.decode((String, String).self)
        let status = found?.0
        var replaced: String?
        if status == "lost" {
            replaced = "PostgreSQL invalidated it (max_slot_wal_keep_size)"
            try await connection.query("SELECT pg_drop_replication_slot(\(slotName))")
        } else if status == nil, hadSlot {
            replaced = "it was dropped"
        }
        if status == nil || replaced != nil {
            let created = try await connection.query(
                "SELECT lsn::text FROM pg_create_logical_replication_slot(\(slotName), 'pgoutput')"
            ).first?.decode(String.self)
            confirmed = created.flatMap(Self.lsn) ?? 0
        } else {
            confirmed = found.flatMap { Self.lsn($0.1) } ?? 0
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

    /// The position up to which the server's log can be decoded now (``PostgresChangeFeed/positionSQL``), read
    /// with the slot's row: a slot dropped while the feed waits is found out at once, not at the next change.
    func currentPosition(on connection: _ClosedConnectionGuard) async throws -> UInt64? {
        let rows = try await connection.query(
            "SELECT \(unescaped: PostgresChangeFeed.positionSQL) FROM pg_replication_slots WHERE slot_name = \(slotName)"
        )
        guard let row = rows.first else { throw SlotMissing(slot: slotName) }
        return try row.decode(String?.self).flatMap(Self.lsn)
    }

    /// The slot disappeared while the feed read it: the next attempt creates it again.
    struct SlotMissing: Error, CustomStringConvertible {
        var slot: String
        var description: String { "the replication slot \(slot) no longer exists" }
    }

    /// Finds the OID of a subscription's table (`to_regclass`, on the connection's `search_path`).
    func lookUp(_ subscription: _FeedSubscription, on connection: _ClosedConnectionGuard) async throws {
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

    /// What one read of the slot returned.
    struct Chunk {
        /// The rows (messages) read.
        var rows = 0
        /// The rows of transactions not delivered before (the others, not confirmed yet, were skipped).
        var newRows = 0
        /// The end of the last transaction read (0 if none).
        var lastCommit: UInt64 = 0
    }

    /// Reads up to ``PostgresChangeFeed/chunkSize`` changes (whole transactions) of the transactions that commit
    /// before `end` (all when `nil`), and delivers the committed transactions not delivered yet; the rows of those
    /// delivered before are skipped without being parsed.
    private mutating func readChunk(upTo end: UInt64?, on connection: _ClosedConnectionGuard) async throws -> Chunk {
        let rows = try await connection.query(
            """
            SELECT data FROM pg_logical_slot_peek_binary_changes(\(slotName)::name, \(end.map(Self.lsn))::pg_lsn,
            \(Int32(clamping: feed.chunkSize)), 'proto_version', '1', 'publication_names', \(publication.sql))
            """)
        var chunk = Chunk()
        var committed: [_FeedTransaction] = []
        // The chunk's committed transactions go over together, as a stream's hand-over; those committed before a
        // message that does not read too (``delivered`` counts them already).
        defer { deliver(committed, to: feed.subscriptions) }
        for row in rows {
            var data = try row.decode(ByteBuffer.self)
            chunk.rows += 1
            let step = try consume(&data)
            if step.isNew { chunk.newRows += 1 }
            if let end = step.committed {
                chunk.lastCommit = end
                if let transaction = step.transaction { committed.append(transaction) }
            }
        }
        return chunk
    }

    /// Reads one `pgoutput` message. The rows of a transaction delivered before are skipped without being parsed.
    ///
    /// - Returns: Whether the message belongs to a transaction not delivered before; if it was a Commit, the end
    ///   of the transaction, and the transaction to deliver unless it was delivered before (the caller delivers it:
    ///   ``delivered`` already counts it).
    mutating func consume(
        _ data: inout ByteBuffer
    ) throws -> (isNew: Bool, committed: UInt64?, transaction: _FeedTransaction?) {
        if skipping, let tag = data.getInteger(at: data.readerIndex, as: UInt8.self), Self.rowTags.contains(tag) {
            return (false, nil, nil)
        }
        let isNew = !skipping
        let message = try _PgOutputMessage.read(&data)
        switch message {
        case .begin(let xid, let finalLSN):
            // Commit records are in order: one before the end of the last delivered was delivered.
            skipping = finalLSN < delivered
            transaction = skipping ? nil : _FeedTransaction(xid: xid)
        case .relation(let relation):
            relations[relation.oid] = relation
        case .insert(let oid, _), .update(let oid, _, _), .delete(let oid, _):
            let relation = try relation(oid)
            transaction?.add(message, relation: relation)
        case .truncate(let oids):
            for oid in oids {
                let relation = try relation(oid)
                transaction?.add(message, relation: relation)
            }
        case .commit(let end):
            let committed = end > delivered ? transaction : nil
            delivered = max(delivered, end)
            (transaction, skipping) = (nil, false)
            return (isNew, end, committed)
        case .ignored:
            break
        }
        return (isNew, nil, nil)
    }

    /// The tags of the messages that carry rows: Insert, Update, Delete, Truncate.
    private static let rowTags: Set<UInt8> = [
        UInt8(ascii: "I"), UInt8(ascii: "U"), UInt8(ascii: "D"), UInt8(ascii: "T"),
    ]

    private func relation(_ oid: UInt32) throws(_PgOutputMessage.Malformed) -> _PgOutputMessage.Relation {
        guard let relation = relations[oid] else {
            throw _PgOutputMessage.Malformed(description: "a row of relation \(oid) before its Relation message")
        }
        return relation
    }

    /// Hands each table's part of committed transactions (in commit order) to its subscriptions among
    /// `subscriptions` (the feed's, taken once per read: those added since have not had their table looked up, and
    /// would get nothing): the parts of a subscription's table go to it together, one hand-over.
    func deliver(_ transactions: [_FeedTransaction], to subscriptions: [_FeedSubscription]) {
        for subscription in subscriptions {
            guard let oid = subscription.relation else { continue }
            var offered: [(xid: UInt32, items: [_TransactionBatch.Item])] = []
            for transaction in transactions {
                guard let changes = transaction.changes(of: oid) else { continue }
                do {
                    let items = try _FeedTransaction.items(of: changes, idColumn: subscription.idColumn)
                    offered.append((transaction.xid, items))
                } catch {
                    subscription.reportMalformed(error)
                }
            }
            if !offered.isEmpty { subscription.offer(offered) }
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
