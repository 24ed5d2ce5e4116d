import LiveResults
import LiveResultsPostgres
import NIOCore
import PostgresNIO

/// Two controllers of the same to-dos, set up from this module as a user's would be: one that applies events called
/// here, and one that observes the table's change feed, read from `pgoutput` messages by the feed's own code
/// (`_FeedReplay`: parsing, the transaction, the subscription, the table's row decoding, then the controller).
///
/// Used by one task at a time, which reads the messages as the feed's reading task would (a task of the
/// cooperative pool, which the deliveries' tasks share).
final class FeedScenario {
    /// How an update reaches its controller.
    enum Path: CaseIterable {
        /// `apply` called here, one event at a time.
        case direct
        /// One transaction's messages read and handed over at a time, and applied before the next is read: a
        /// stream's hand-over when the subscriber keeps up with the commits.
        case feed
        /// Every transaction's messages read, then handed over together and applied: the feed's hand-over of
        /// what it read meanwhile (a stream's batch under load), which its delivery gives the controller as one
        /// batch or a few.
        case handOver
    }

    /// Something the controller that follows the feed did not show as the messages said.
    struct Mismatch: Error, CustomStringConvertible {
        var description: String
    }

    let direct: FetchedResultsController<Todo>
    let followed: FetchedResultsController<Todo>
    private let replay: _FeedReplay<Todo>
    private let subscription: EventSubscription
    private var reader: _FeedReplay<Todo>.Reader
    private var writer = PgOutputWriter()
    private let count: Int
    /// A xorshift generator: the same updates in every run.
    private var random: UInt64 = 0x9E37_79B9_7F4A_7C15

    /// Loads `count` to-dos into both controllers.
    init(count: Int) async throws {
        self.count = count
        let todos = (1...count).map { Todo(id: Int64($0)) }
        direct = try await Todo.controller(of: todos)
        followed = try await Todo.controller(of: todos)
        // Never run: nothing is sent to a server, the replay reads the messages given.
        let client = PostgresClient(
            configuration: .init(
                host: "localhost", username: "benchmark", password: nil, database: "benchmark", tls: .disable))
        let feed = PostgresChangeFeed(client: client, publication: "todos_feed")
        let table = PostgresLiveTable<Todo>(client: client, table: "todos", changes: .replication(feed))
        replay = _FeedReplay(table: table, relation: PgOutputWriter.relation)
        subscription = followed.observe(replay)
        reader = try replay.reader()
    }

    /// `updates` single-row updates of random to-dos: a new title, and a new priority, which moves each in its
    /// section.
    func updates(_ updates: Int) -> [Todo] {
        (0..<updates).map { update in
            var todo = Todo(id: Int64(nextRandom() % UInt64(count)) + 1)
            todo.title = "Call back about order \(todo.id), take \(update)"
            todo.priority = Int(nextRandom() % 5)
            return todo
        }
    }

    private func nextRandom() -> UInt64 {
        random ^= random << 13
        random ^= random >> 7
        random ^= random << 17
        return random
    }

    /// The messages of `todos`' updates, one transaction each.
    func transactions(_ todos: [Todo]) -> [[ByteBuffer]] {
        todos.map { writer.transaction(updating: $0) }
    }

    /// Takes `todos` (whose messages are `transactions`) to a controller along `path`; each update of the feed's
    /// paths is checked in the controller afterwards.
    func deliver(_ todos: [Todo], as transactions: [[ByteBuffer]], along path: Path) async throws {
        switch path {
        case .direct:
            for todo in todos { direct.apply(.updated(todo)) }
        case .feed:
            for messages in transactions {
                try read(messages)
                reader.handOver()
                await waitForDeliveries()
            }
        case .handOver:
            for messages in transactions { try read(messages) }
            reader.handOver()
            await waitForDeliveries()
        }
    }

    /// Whether the controller that follows the feed shows `todos` (the updates of one delivery) as they were last
    /// updated.
    func check(_ todos: [Todo]) throws {
        let last = Dictionary(todos.map { ($0.id, $0) }, uniquingKeysWith: { $1 })
        for todo in last.values where followed.object(withID: todo.id) != todo {
            throw Mismatch(description: "to-do \(todo.id) is \(String(describing: followed.object(withID: todo.id)))")
        }
        guard followed.snapshot.count == count else {
            throw Mismatch(description: "the followed controller shows \(followed.snapshot.count) to-dos, not \(count)")
        }
    }

    private func read(_ messages: [ByteBuffer]) throws {
        for var message in messages { try reader.read(&message) }
    }

    /// Waits until every transaction read has reached the controller (the caller bounds the wait: see
    /// `withWatchdog`).
    private func waitForDeliveries() async {
        await withCheckedContinuation { continuation in replay.whenDelivered { continuation.resume() } }
    }
}
