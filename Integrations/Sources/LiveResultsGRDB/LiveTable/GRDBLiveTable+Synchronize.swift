import Foundation
import GRDB
import LiveResults

extension GRDBLiveTable {
    /// Returns once every transaction committed before the call has been delivered to the table's subscriptions.
    ///
    /// An observer hands each transaction's batch to its subscription's delivery queue on the writer, before the
    /// write that committed it returns; the delivery itself runs later, on that queue. So this waits for each
    /// subscription's queue to run what it holds: no database access, and nothing to time out.
    ///
    /// - Complexity: O(*s*) for *s* subscriptions, plus the time their queues take to deliver what they hold.
    public func synchronize() async throws {
        await deliveryQueues.drain()
    }
}
