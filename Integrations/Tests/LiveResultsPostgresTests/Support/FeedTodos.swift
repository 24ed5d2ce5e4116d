import Foundation
import LiveResults
import NIOConcurrencyHelpers
import LiveResultsPostgres
import LiveResultsTestSupport
import PostgresNIO
import Testing

/// Records what a feed does.
final class FeedLog: Sendable {
    private let events = NIOLockedValueBox<[PostgresChangeFeedEvent]>([])

    func record(_ event: PostgresChangeFeedEvent) { events.withLockedValue { $0.append(event) } }

    /// Every event, with the time it was recorded.
    var all: [PostgresChangeFeedEvent] { events.withLockedValue { $0 } }

    /// The number of times the feed started reading its slot.
    var readings: Int { events.withLockedValue { $0.count { if case .reading = $0 { true } else { false } } } }
    var failures: Int { events.withLockedValue { $0.count { if case .connectionFailed = $0 { true } else { false } } } }
    var replacements: Int { events.withLockedValue { $0.count { if case .slotReplaced = $0 { true } else { false } } } }
    /// The slots of other feeds this one dropped.
    var droppedSlots: [String] {
        events.withLockedValue {
            $0.compactMap { if case .abandonedSlotDropped(let slot, _) = $0 { slot } else { nil } }
        }
    }
    /// The slot the feed last said it reads.
    var slot: String? {
        events.withLockedValue { $0.last { if case .reading = $0 { true } else { false } } }.flatMap {
            if case .reading(let slot, _) = $0 { slot } else { nil }
        }
    }
}

/// A subscriber that records every batch a source delivers, and every malformed event.
final class EventRecorder: Sendable {
    private let batches = NIOLockedValueBox<[[EntityEvent<Todo>]]>([])
    private let malformed = NIOLockedValueBox<[String]>([])

    var subscriber: EventSubscriber<Todo> {
        EventSubscriber(
            receive: { [self] events in batches.withLockedValue { $0.append(events) } },
            reportMalformedEvent: { [self] error in malformed.withLockedValue { $0.append("\(error)") } })
    }

    var all: [[EntityEvent<Todo>]] { batches.withLockedValue { $0 } }
    var malformedEvents: [String] { malformed.withLockedValue { $0 } }

    var invalidations: Int {
        all.joined().count { if case .invalidated = $0 { true } else { false } }
    }

    /// Every inserted or updated to-do, in delivery order.
    var written: [Todo] {
        all.joined().compactMap { event in
            switch event {
            case .inserted(let todo), .updated(let todo): todo
            default: nil
            }
        }
    }
}

/// The fetches of a definition, recorded.
final class FetchLog: Sendable {
    private let fetches = NIOLockedValueBox<[[Todo]]>([])

    var all: [[Todo]] { fetches.withLockedValue { $0 } }

    func record(_ todos: [Todo]) { fetches.withLockedValue { $0.append(todos) } }

    /// `definition` with each fetch's result recorded.
    func recording(_ definition: FetchDefinition<Todo>) -> FetchDefinition<Todo> {
        var definition = definition
        let request = definition.request
        definition.request = { [self] in
            let todos = try await request()
            record(todos)
            return todos
        }
        return definition
    }
}

/// How a test's feed reads its slot: each of the feed's main tests runs with both.
enum FeedRead: String, CaseIterable, Sendable, CustomTestStringConvertible {
    case sql
    case stream

    var testDescription: String { rawValue }

    /// The feed's transport, for a client of `configuration`.
    func transport(_ configuration: PostgresClient.Configuration) -> PostgresChangeFeed.Transport {
        switch self {
        case .sql: .sqlFunctions
        case .stream: .replicationProtocol(PostgresTestServer.connectionConfiguration(configuration))
        }
    }
}

/// A feed, a live table of to-dos on it, a controller, and a recorder subscribed beside the controller.
struct FeedTodos: Sendable {
    let feed: PostgresChangeFeed
    let table: PostgresLiveTable<Todo>
    let controller: FetchedResultsController<Todo>
    /// Checks every change set of the controller, unless the helper was made unchecked: O(n) per change set,
    /// which falls behind a few hundred transactions per second in a debug build.
    let checker: ContractChecker<Todo>?
    let feedLog: FeedLog
    let recorder: EventRecorder
    let fetches: FetchLog
    let subscriptions: [EventSubscription]

    /// Sets the feed up for `todos`, subscribes the controller and the recorder, and fetches unless told not to.
    init(
        client: PostgresClient, table name: String = "todos", slot: PostgresChangeFeed.Slot = .temporary,
        transport: PostgresChangeFeed.Transport = .sqlFunctions, feed existing: PostgresChangeFeed? = nil,
        definition: ((PostgresLiveTable<Todo>) -> FetchDefinition<Todo>)? = nil, fetch: Bool = true,
        checked: Bool = true
    ) async throws {
        let feedLog = FeedLog()
        feed =
            existing
            ?? PostgresChangeFeed(
                client: client, publication: "liveresults", slot: slot, transport: transport,
                reconnectBackoff: Backoff(initialDelay: .milliseconds(50), maximumDelay: .seconds(1)),
                events: { feedLog.record($0) })
        try await feed.setUp(tables: [name])
        table = PostgresLiveTable<Todo>(client: client, table: name, changes: .replication(feed))
        self.feedLog = feedLog
        let fetches = FetchLog()
        self.fetches = fetches
        controller = FetchedResultsController(
            definition: fetches.recording(definition?(table) ?? table.fetchDefinition()),
            sortDescriptors: Todo.sortDescriptors, sectionNameKeyPath: \Todo.project)
        checker = checked ? ContractChecker(controller) : nil
        recorder = EventRecorder()
        subscriptions = [controller.observe(table), table.subscribe(recorder.subscriber)]
        if fetch { try await controller.performFetch() }
    }

    var shown: [Todo] { Array(controller.fetchedObjects) }

    /// What broke the controller's contract; nothing when unchecked.
    var violations: [String] { checker?.violations ?? [] }

    /// Whether the controller shows exactly what `SELECT` returns, in its order.
    func matches(_ client: PostgresClient, table: String = "todos") async throws -> Bool {
        try await shown == LiveTodos.select(client, table: table)
    }

    func cancel() { subscriptions.forEach { $0.cancel() } }
}

/// Ends the change feed's reading connection of the current database from the server's side.
func terminateFeedReader(_ client: PostgresClient) async throws -> Int {
    let rows = try await client.query(
        """
        SELECT count(pg_terminate_backend(pid))::int FROM pg_stat_activity
        WHERE datname = current_database() AND pid <> pg_backend_pid()
        AND (query LIKE '%pg_logical_slot_peek_binary_changes%' OR query LIKE '%FROM pg_replication_slots WHERE%'
        OR query LIKE '%pg_replication_slot_advance%' OR backend_type = 'walsender')
        """)
    return try await rows.collect().first?.decode(Int.self) ?? 0
}
