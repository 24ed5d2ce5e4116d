import LiveResults
import NIOConcurrencyHelpers
import NIOCore

/// The benchmarks' door to a change feed's reading path without a server: `pgoutput` messages, recorded or
/// written as PostgreSQL sends them, go through the reading task's own steps (``_FeedReader/consume(_:)``, then
/// ``_FeedReader/deliver(_:to:)`` at each hand-over of a stream) to a table's subscriptions, made as the feed makes them
/// (``PostgresLiveTable/feedSubscription(for:)``): their transactions, their delivery's row decoding, then the
/// subscriber. No reading task runs and nothing is sent to the server: each subscription follows the relation
/// given, and is live from the start (no fetch of the table meets it; a controller that observes this source
/// fetches from a definition of its own).
///
/// `package`, not `@testable`, so that a release build of a benchmark, a module of its own as a user's would be,
/// reads through it.
package final class _FeedReplay<Entity: FetchableEntity & Decodable>: EventSource, Sendable
where Entity.ID: Decodable {
    private let table: PostgresLiveTable<Entity>
    private let feed: PostgresChangeFeed
    private let relation: UInt32
    private let subscriptions = NIOLockedValueBox<[_FeedSubscription]>([])

    /// A replay of `table`'s feed, whose subscriptions follow the relation of OID `relation`.
    ///
    /// - Precondition: `table` follows a ``PostgresChangeFeed`` (``PostgresChangeSource/replication(_:)``).
    package init(table: PostgresLiveTable<Entity>, relation: UInt32) {
        guard case .replication(let feed) = table.changes else {
            preconditionFailure("a replay reads a change feed: the table must follow one")
        }
        self.table = table
        self.feed = feed
        self.relation = relation
    }

    /// Subscribes `subscriber` as ``PostgresLiveTable/subscribe(_:)`` does for a table that follows a feed, with
    /// the subscription live at once.
    ///
    /// - Complexity: O(*s*) for *s* subscriptions.
    package func subscribe(_ subscriber: EventSubscriber<Entity>) -> EventSubscription {
        guard let (subscription, delivery) = table.feedSubscription(for: subscriber) else {
            return EventSubscription {}
        }
        subscription.relation = relation
        // A snapshot that sees no transaction: every one read is delivered.
        subscription.release(snapshot: _Snapshot.none, invalidating: false)
        subscriptions.withLockedValue { $0.append(subscription) }
        return EventSubscription { [subscriptions] in
            subscriptions.withLockedValue { $0.removeAll { $0 === subscription } }
            delivery.stop()
        }
    }

    /// Runs `action` once every transaction read so far has reached the subscribers (at once when there are
    /// none), as a fetch that waits for the feed's deliveries does.
    ///
    /// - Complexity: O(*s*) for *s* subscriptions.
    package func whenDelivered(_ action: @escaping @Sendable () -> Void) {
        _FeedSubscription.whenDelivered(subscriptions.withLockedValue { $0 }, action)
    }

    /// A reader of messages, with the reading task's state from the start: no relation described, nothing
    /// delivered.
    ///
    /// - Throws: ``PostgresLiveTableError/invalidIdentifier(_:reason:)`` when the feed's publication is no valid
    ///   name, as the reading task would.
    /// - Complexity: O(1).
    package func reader() throws -> Reader {
        Reader(
            reader: _FeedReader(feed: feed, run: 0, slotName: "replay", publication: try feed.publicationName.get()),
            replay: self)
    }

    /// Reads `pgoutput` messages as the feed's reading task does when it follows a replication stream. A value
    /// owned by its caller, as the reading task owns its reader.
    package struct Reader {
        private var reader: _FeedReader
        private let replay: _FeedReplay
        /// The transactions read since the last hand-over.
        private var held: [_FeedTransaction] = []

        fileprivate init(reader: _FeedReader, replay: _FeedReplay) {
            self.reader = reader
            self.replay = replay
        }

        /// Reads one message, the whole of `message`: a Commit's transaction is held for the next ``handOver()``.
        ///
        /// - Throws: ``_PgOutputMessage/Malformed`` for a message that is not `pgoutput`'s protocol version 1, or a
        ///   row of a relation not described before.
        /// - Complexity: O(*m*) for a message of *m* bytes.
        package mutating func read(_ message: inout ByteBuffer) throws {
            if let transaction = try reader.consume(&message).transaction { held.append(transaction) }
        }

        /// Hands the transactions read since the last hand-over to the subscriptions together, as the reading
        /// task does at each batch of its stream.
        ///
        /// - Complexity: O(*t*) for *t* transactions, and their delivery.
        package mutating func handOver() {
            reader.deliver(held, to: replay.subscriptions.withLockedValue { $0 })
            held = []
        }
    }
}
