import Foundation
import GRDB
import LiveResults

extension GRDBLiveTable: EventSource {
    /// Starts observing the table for `subscriber`: one batch of events per committed transaction that
    /// changed it.
    ///
    /// It returns at once, without waiting for the database: the observer is added to the writer connection
    /// by a job on the writer's queue, after the accesses already scheduled there. A fetch through this
    /// table's definitions that starts afterwards waits (suspended, not blocking a thread) until that job
    /// has run, so it misses nothing: a transaction committed while it runs also arrives as a batch, which
    /// the controller replays onto the fetch's result. Batches are delivered in commit order on a serial
    /// queue of the subscription's own, never on the writer's queue, so the controller's observers may read
    /// and write the database.
    ///
    /// A table whose primary key is not its rowid (a `WITHOUT ROWID` table among others), a missing table
    /// or a database error is reported to the subscriber as a malformed event
    /// (``GRDBLiveTableError/subscriptionFailed(table:underlying:)``) once the job has run, and the
    /// subscription delivers nothing.
    ///
    /// ```swift
    /// let subscription = controller.observe(players)
    /// try await controller.performFetch()
    /// ```
    ///
    /// - Parameter subscriber: Receives the batches, on the subscription's delivery queue.
    /// - Returns: The subscription; cancelling or releasing it stops the deliveries at once (a batch not yet
    ///   delivered is dropped) and removes the observer from the writer when the writer is free.
    /// - Complexity: O(1) to subscribe (the observer is added on the writer's queue). Per committed
    ///   transaction that changed *k* rows: O(*k*) to collect them, and one query of *k* rowid lookups,
    ///   O(*k* log *n*), on the writer connection right after the commit.
    public func subscribe(_ subscriber: EventSubscriber<Record>) -> EventSubscription {
        let observer = _TableObserver(liveTable: self, subscriber: subscriber)
        // Never `writer.writeWithoutTransaction { }` here: that waits for the writer's queue, and a caller
        // on Swift's cooperative pool (a task) would hold one of its few threads meanwhile. The job runs on
        // the writer's serial queue, in order with the writes scheduled before it and before the removal
        // below; the table's fetches wait for it through `installations`.
        installations.scheduled()
        writer.asyncWriteWithoutTransaction { [self] db in
            defer { installations.ran() }
            do {
                try validate(db)
                try observer.start(db)
            } catch {
                observer.report(GRDBLiveTableError.subscriptionFailed(table: table, underlying: error))
                return
            }
            guard !observer.isCancelled else { return }
            db.add(transactionObserver: observer, extent: .observerLifetime)
        }
        let (writer, deliveryQueues) = (self.writer, self.deliveryQueues)
        let delivery = deliveryQueues.add(observer.deliveryQueue)
        return EventSubscription {
            observer.cancel()
            deliveryQueues.remove(delivery)
            writer.asyncWriteWithoutTransaction { db in
                db.remove(transactionObserver: observer)
            }
        }
    }
}
