import Foundation
import LiveResults
import Logging
import PostgresNIO

extension PostgresLiveTable {
    /// Subscribes `subscriber` to `feed`: the feed's transactions that touch this table become its batches.
    func subscribe(_ subscriber: EventSubscriber<Entity>, to feed: PostgresChangeFeed) -> EventSubscription {
        let names: _TableNames
        do {
            names = try self.names.get()
        } catch {
            subscriber.reportMalformedEvent(error)
            return EventSubscription {}
        }
        let delivery = _NotificationDelivery(table: self, subscriber: subscriber, names: names)
        let subscription = _FeedSubscription(
            table: ObjectIdentifier(self), qualifiedTable: names.qualifiedTable, idColumn: names.idColumn.name,
            deliver: { delivery.enqueue($0) }, report: { subscriber.reportMalformedEvent($0) })
        // A fetch that ran before this subscription met no snapshot of it: one refetch, once the feed reads.
        if hasFetched.isSet { subscription.release(snapshot: _Snapshot.none, invalidating: true) }
        return feed.add(subscription) { delivery.stop() }
    }

    /// Runs a fetch's `query` (rows of a row's JSON and its id as text) in a transaction whose snapshot the
    /// feed then uses to skip what the fetch read: the fetch and the feed meet exactly.
    ///
    /// Waits first for the feed's slot and its lookup of this table's subscriptions, so that what the snapshot
    /// does not see is read after both.
    func decodeRows(
        _ query: PostgresQuery, meeting feed: PostgresChangeFeed, connected: @escaping @Sendable () -> Void
    ) async throws -> (entities: [Entity], lastJSON: String?) {
        let slot = await feed.slotForFetch(of: ObjectIdentifier(self))
        return try await client.withConnection { connection in
            connected()
            try await connection.query("BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY", logger: _silentLogger)
            do {
                let snapshotText =
                    try await connection.query("SELECT pg_current_snapshot()::text", logger: _silentLogger)
                    .collect().first?.decode(String.self) ?? ""
                // PostgreSQL writes it as `_Snapshot` reads it; were it not, seeing nothing only risks a replay.
                let snapshot = _Snapshot(snapshotText) ?? .none
                var entities: [Entity] = []
                var lastJSON: String?
                let rows = try await connection.query(query, logger: _silentLogger)
                for try await (json, id) in rows.decode((String, String?).self) {
                    entities.append(try decodeRow(json, id: id))
                    lastJSON = json
                }
                try await connection.query("COMMIT", logger: _silentLogger)
                hasFetched.set()
                feed.fetched(table: ObjectIdentifier(self), snapshot: snapshot, slot: slot)
                return (entities, lastJSON)
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
