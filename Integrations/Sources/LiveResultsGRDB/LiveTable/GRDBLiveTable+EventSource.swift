import Foundation
import GRDB
import LiveResults

extension GRDBLiveTable: EventSource {
    /// Starts observing the table for `subscriber`: one batch of events per committed transaction that
    /// changed it.
    ///
    /// The observer is added to the writer connection before this method returns (it waits for the writer
    /// to be free), so a fetch that starts afterwards misses nothing: a transaction committed while it runs
    /// also arrives as a batch, which the controller replays onto the fetch's result. Batches are delivered
    /// in commit order on a serial queue of the subscription's own, never on the writer's queue, so the
    /// controller's observers may read and write the database.
    ///
    /// A table whose primary key is not its rowid (a `WITHOUT ROWID` table among others), a missing table
    /// or a database error is reported to the subscriber as a malformed event
    /// (``GRDBLiveTableError/subscriptionFailed(table:underlying:)``), and the subscription delivers nothing.
    ///
    /// ```swift
    /// let subscription = controller.observe(players)
    /// try await controller.performFetch()
    /// ```
    ///
    /// Do not call it from inside a database access of the same writer (GRDB's accesses are not reentrant).
    ///
    /// - Parameter subscriber: Receives the batches, on the subscription's delivery queue.
    /// - Returns: The subscription; cancelling or releasing it stops the deliveries at once (a batch not yet
    ///   delivered is dropped) and removes the observer from the writer when the writer is free.
    /// - Complexity: Per committed transaction that changed *k* rows: O(*k*) to collect them, and one query of
    ///   *k* rowid lookups, O(*k* log *n*), on the writer connection right after the commit.
    public func subscribe(_ subscriber: EventSubscriber<Record>) -> EventSubscription {
        let observer = _TableObserver(liveTable: self, subscriber: subscriber)
        do {
            try writer.writeWithoutTransaction { db in
                try validate(db)
                try observer.start(db)
                db.add(transactionObserver: observer, extent: .observerLifetime)
            }
        } catch {
            subscriber.reportMalformedEvent(GRDBLiveTableError.subscriptionFailed(table: table, underlying: error))
            return EventSubscription {}
        }
        let writer = self.writer
        return EventSubscription {
            observer.cancel()
            writer.asyncWriteWithoutTransaction { db in
                db.remove(transactionObserver: observer)
            }
        }
    }
}
