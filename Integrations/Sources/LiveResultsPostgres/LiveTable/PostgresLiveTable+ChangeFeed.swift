import Foundation
import LiveResults
import Logging
import PostgresNIO

extension PostgresLiveTable {
    /// Subscribes `subscriber` to `feed`: the feed's transactions that touch this table become its batches.
    func subscribe(_ subscriber: EventSubscriber<Entity>, to feed: PostgresChangeFeed) -> EventSubscription {
        guard let (subscription, delivery) = feedSubscription(for: subscriber) else { return EventSubscription {} }
        // A fetch that started before this subscription may have met no snapshot of it: one refetch, once the
        // feed reads.
        if hasFetched.isSet { subscription.release(snapshot: _Snapshot.none, invalidating: true) }
        return feed.add(subscription) { delivery.stop() }
    }

    /// The subscription through which a feed hands `subscriber` this table's part of each transaction, and the
    /// delivery that decodes those rows into entities; `nil` when the table's names are invalid (reported to
    /// `subscriber`).
    func feedSubscription(
        for subscriber: EventSubscriber<Entity>
    ) -> (subscription: _FeedSubscription, delivery: _NotificationDelivery<Entity>)? {
        let names: _TableNames
        do {
            names = try self.names.get()
        } catch {
            subscriber.reportMalformedEvent(error)
            return nil
        }
        let delivery = _NotificationDelivery(table: self, subscriber: subscriber, names: names)
        let subscription = _FeedSubscription(
            table: ObjectIdentifier(self), qualifiedTable: names.qualifiedTable, idColumn: names.idColumn.name,
            deliver: { delivery.enqueue($0) }, report: { subscriber.reportMalformedEvent($0) },
            afterDeliveries: { delivery.afterQueued($0) })
        return (subscription, delivery)
    }

    /// Runs a fetch's `query` (rows of a row's JSON and its id as text) in a transaction whose snapshot the
    /// feed then uses to skip what the fetch read: the fetch and the feed meet exactly.
    ///
    /// Waits first for the feed's slot and its lookup of this table's subscriptions, so that what the snapshot
    /// does not see is read after both. The snapshot releases the subscriptions that await a fetch; when some
    /// met an earlier fetch (another controller's, or this one's first), the fetch then waits until they have
    /// received every transaction its snapshot sees, so that none reaches a controller after this result
    /// (see ``PostgresChangeFeed/meet(table:snapshot:slot:)``).
    ///
    /// Each of the three waits is bounded by ``queryTimeout``: for the slot and the lookup (one minute while the
    /// feed creates its first slot, see ``PostgresChangeFeed/slotCreationTimeout``), for the query, connection
    /// included, and for the deliveries.
    func decodeRows(
        _ query: PostgresQuery, meeting feed: PostgresChangeFeed, connected: @escaping @Sendable () -> Void
    ) async throws -> (entities: [Entity], lastJSON: String?) {
        // Before the wait: a subscription that starts from now on may come after this fetch's snapshot.
        hasFetched.set()
        let slot = try await feed.slotForFetch(of: ObjectIdentifier(self), timeout: queryTimeout)
        let (entities, lastJSON, position) = try await client.withTimeout(queryTimeout) { [self] client in
            try await snapshotRows(query, meeting: feed, slot: slot, connected: connected)
        }
        if let position {
            try await feed.waitForDeliveries(of: ObjectIdentifier(self), through: position, timeout: queryTimeout)
        }
        return (entities, lastJSON)
    }

    /// The rows of `query` in a snapshot that met `feed` (having found `slot`), and the position up to which the
    /// feed must deliver before they are returned (`nil`: at once).
    private func snapshotRows(
        _ query: PostgresQuery, meeting feed: PostgresChangeFeed, slot: Int?, connected: @escaping @Sendable () -> Void
    ) async throws -> (entities: [Entity], lastJSON: String?, position: UInt64?) {
        let table = ObjectIdentifier(self)
        return try await client.withConnection { connection in
            connected()
            // A snapshot recorded concurrently that sees more than this one: read again (rare; bounded).
            var attempt = 0
            while true {
                attempt += 1
                try await connection.query("BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY", logger: _silentLogger)
                do {
                    let (snapshotText, positionText) =
                        try await connection.query(
                            PostgresQuery(
                                unsafeSQL: "SELECT pg_current_snapshot()::text, \(PostgresChangeFeed.positionSQL)"),
                            logger: _silentLogger
                        ).collect().first?.decode((String, String?).self) ?? ("", nil)
                    // PostgreSQL writes it as `_Snapshot` reads it; were it not, seeing nothing only risks a replay.
                    let snapshot = _Snapshot(snapshotText) ?? .none
                    let meeting = feed.meet(table: table, snapshot: snapshot, slot: slot)
                    if case .readAgain = meeting, attempt < 5 {
                        try await connection.query("COMMIT", logger: _silentLogger)
                        continue
                    }
                    var entities: [Entity] = []
                    var lastJSON: String?
                    let rows = try await connection.query(query, logger: _silentLogger)
                    for try await (json, id) in rows.decode((String, String?).self) {
                        entities.append(try decodeRow(json, id: id))
                        lastJSON = json
                    }
                    try await connection.query("COMMIT", logger: _silentLogger)
                    let position = positionText.flatMap(_FeedReader.lsn(_:))
                    return (entities, lastJSON, meeting == .exact ? nil : position)
                } catch {
                    // A connection that failed is closed before it goes back to the pool (see `closeBeforeRelease`).
                    do {
                        try await connection.query("ROLLBACK", logger: _silentLogger)
                    } catch {
                        await Self.closeBeforeRelease(connection)
                    }
                    throw error
                }
            }
        }
    }
}
