import Foundation
import LiveResults
import PostgresNIO

extension PostgresLiveTable {
    /// Returns once every change to the table committed before the call has been delivered to the table's
    /// subscriptions in this process: read-your-writes for live results that follow it.
    ///
    /// - With ``changes`` ``PostgresChangeSource/replication(_:)``, the barrier is a position in the log: a small
    ///   transaction (a logical message, which the feed does not receive) commits with `synchronous_commit = on`,
    ///   which makes the log durable through it, and with it every transaction committed before the call, those
    ///   committed with `synchronous_commit = off` included; then the position up to which the log is durable.
    ///   It returns once the feed has read the log through it and its subscriptions of this table have delivered
    ///   what it read: a read of the slot, with the SQL functions, or a keepalive of the replication stream, which
    ///   the feed asks for.
    /// - With ``PostgresChangeSource/notifications``, the barrier is a notification on ``channel`` (notifications
    ///   arrive in commit order), and it returns once each subscription listening in this process has delivered
    ///   what came before it. A subscription between connections passes when it listens again, after the
    ///   `EntityEvent.invalidated` that makes its controllers refetch.
    ///
    /// Concurrent calls share a barrier: one that starts while another's query runs waits for the next, and a
    /// thousand concurrent calls make two. Without a subscription it returns at once.
    ///
    /// ```swift
    /// try await client.query("UPDATE todos SET done = true WHERE id = 42")
    /// try await todos.synchronize()   // the controllers that follow `todos` have received the update
    /// ```
    ///
    /// - Throws: ``PostgresLiveTableError/timedOut(after:)`` when the barrier does not come back within
    ///   ``queryTimeout`` (the server or the feed is slow, or a subscription is reconnecting); PostgreSQL's error
    ///   when its query fails.
    /// - Complexity: Two short queries (one commit, whose flush is one write to disk) and the time the feed takes to
    ///   read up to the position (a read of the log, or a keepalive's round trip); or one notification's round trip.
    public func synchronize() async throws {
        try await synchronization.join { [self] in
            switch changes {
            case .notifications: try await synchronizeNotifications()
            case .replication(let feed): try await synchronize(with: feed)
            }
        }
    }

    /// One round of ``synchronize()`` through the feed: the log flushed and its position read, then the wait for
    /// the deliveries.
    private func synchronize(with feed: PostgresChangeFeed) async throws {
        let started = ContinuousClock.now
        let text = try await client.withTimeout(queryTimeout) { client -> String? in
            try await client.query(PostgresQuery(unsafeSQL: Self.flushSQL))
            return try await client.query(PostgresQuery(unsafeSQL: "SELECT \(PostgresChangeFeed.positionSQL)"))
                .collect().first?.decode(String?.self) ?? nil
        }
        guard let position = text.flatMap(_FeedReader.lsn(_:)) else { return }
        try await feed.waitForDeliveries(
            of: ObjectIdentifier(self), through: position, timeout: queryTimeout - (ContinuousClock.now - started))
    }

    /// Makes the log durable up to here: a transaction that writes a logical message (which `pgoutput` does not
    /// send) and commits with `synchronous_commit = on` flushes the log through its commit, and with it every
    /// transaction committed before, those committed with `synchronous_commit = off` included, whose commit records
    /// the feed reads only once they are flushed. Nothing on a standby, which replays what the primary flushed.
    static var flushSQL: String {
        """
        DO $$ BEGIN
            IF NOT pg_is_in_recovery() THEN
                PERFORM set_config('synchronous_commit', 'on', true);
                PERFORM pg_logical_emit_message(true, 'liveresults', 'synchronize');
            END IF;
        END $$
        """
    }

    /// One round of ``synchronize()`` through the table's notifications.
    private func synchronizeNotifications() async throws {
        let names = try self.names.get()
        let token = UUID().uuidString
        let latch = _Latch<_DeliveryWait>()
        guard notificationBarriers.start(token, latch: latch) else { return }
        defer { notificationBarriers.end(token) }
        let timeout = queryTimeout
        let timer = Task {
            guard (try? await Task.sleep(for: timeout)) != nil else { return }
            latch.open(with: .timedOut)
        }
        defer { timer.cancel() }
        _ = try await client.withTimeout(timeout) { client in
            try await client.query("SELECT pg_notify(\(names.channel.name), \(_NotificationBarriers.prefix + token))")
        }
        switch await latch.value(orOnCancellation: .cancelled) {
        case .delivered, .ended: return
        case .timedOut: throw PostgresLiveTableError.timedOut(after: timeout)
        case .cancelled: throw CancellationError()
        }
    }
}
