import Foundation
import LiveResults
import LiveResultsTestSupport
import NIOConcurrencyHelpers
import PostgresNIO
import Testing

@testable import LiveResultsPostgres

/// `synchronize()`: a barrier after every change committed before it, through each transport, bounded by the
/// table's query timeout; concurrent callers share its rounds.
@Suite("PostgresLiveTable: synchronize", .timeLimit(.minutes(3)))
struct SynchronizeTests {
    /// The transports of a table's changes.
    enum Transport: String, CaseIterable, Sendable, CustomTestStringConvertible {
        case notifications, walSQL, walStream
        var testDescription: String { rawValue }
    }

    @Test(
        "each write through SQL is in the controller once synchronize returns: inserts, updates, deletes",
        arguments: Transport.allCases)
    func readYourWrites(transport: Transport) async throws {
        // A cluster of its own: each barrier waits for the feed, which a busy shared cluster slows past the timeout.
        try await PostgresTestServer(cluster: try TemporaryPostgres()).withDatabase { client, configuration in
            try await createSeededTodos(client, count: 5)
            let (table, controller, subscriptions):
                (PostgresLiveTable<Todo>, FetchedResultsController<Todo>, [EventSubscription])
            switch transport {
            case .notifications:
                let live = try await LiveTodos(client: client)
                (table, controller, subscriptions) = (live.table, live.controller, [live.subscription])
            case .walSQL, .walStream:
                let read: FeedRead = transport == .walSQL ? .sql : .stream
                let live = try await FeedTodos(client: client, transport: read.transport(configuration))
                (table, controller, subscriptions) = (live.table, live.controller, live.subscriptions)
            }
            for round in 0..<60 {
                let title = "round \(round)"
                let inserted = try await client.query(
                    "INSERT INTO todos (title, project, priority) VALUES (\(title), 'P0', 1) RETURNING id"
                ).collect().first?.decode(Int64.self)
                let id = try #require(inserted)
                try await table.synchronize()
                await controller.waitForDeliveredEvents()
                #expect(controller.fetchedObjects.contains { $0.id == id }, "round \(round): the insert")
                try await client.query("UPDATE todos SET priority = \(round + 10) WHERE id = \(id)")
                try await table.synchronize()
                await controller.waitForDeliveredEvents()
                #expect(
                    controller.fetchedObjects.first { $0.id == id }?.priority == round + 10,
                    "round \(round): the update")
                try await client.query("DELETE FROM todos WHERE id = \(id)")
                try await table.synchronize()
                await controller.waitForDeliveredEvents()
                #expect(!controller.fetchedObjects.contains { $0.id == id }, "round \(round): the delete")
            }
            withExtendedLifetime(subscriptions) {}
        }
    }

    @Test("a subscription that is not listening holds the barrier back, up to the query timeout")
    func boundedWhileReconnecting() async throws {
        try await PostgresTestServer(cluster: try TemporaryPostgres()).withDatabase { client, _ in
            try await createSeededTodos(client, count: 1)
            let log = ListenerLog()
            let table = PostgresLiveTable<Todo>(
                client: client, table: "todos",
                reconnectBackoff: Backoff(initialDelay: .seconds(60), maximumDelay: .seconds(60), jitter: 0),
                queryTimeout: .seconds(2), listenerEvents: { log.record($0) })
            try await table.installTrigger()
            let subscription = table.subscribe(EventSubscriber { _ in })
            #expect(await eventually { log.listens == 1 })
            try await table.synchronize()
            try await terminateListener(client)
            #expect(await eventually { log.failures == 1 }, "the listener waits a minute before it listens again")
            let started = ContinuousClock.now
            do {
                try await table.synchronize()
                Issue.record("a barrier passed a subscription that does not listen")
            } catch PostgresLiveTableError.timedOut(let after) {
                #expect(after == .seconds(2))
            }
            #expect(ContinuousClock.now - started < .seconds(20), "bounded by the query timeout")
            subscription.cancel()
            // No subscription: nothing to wait for.
            try await table.synchronize()
        }
    }

    @Test("concurrent callers share rounds: one joining during a round waits for the next; errors reach every caller")
    func sharedRounds() async throws {
        let round = _SharedRound()
        let runs = NIOLockedValueBox(0)
        let gate = AsyncGate()
        // A round in flight, held by the gate.
        let first = Task {
            try await round.join {
                runs.withLockedValue { $0 += 1 }; await gate.wait()
            }
        }
        #expect(await eventually { runs.withLockedValue { $0 } == 1 })
        // 100 callers while it runs: they share the next round.
        let joined = NIOLockedValueBox(0)
        let others = (0..<100).map { _ in
            Task {
                try await round.join { runs.withLockedValue { $0 += 1 } }
                joined.withLockedValue { $0 += 1 }
            }
        }
        // A sleep: lets the 100 callers join while the first round is held (a caller that joins later only makes
        // a third round, which the bound below allows for one).
        try await Task.sleep(for: .milliseconds(100))
        #expect(joined.withLockedValue { $0 } == 0, "none shares the round that started before it")
        gate.open()
        try await first.value
        for other in others { try await other.value }
        #expect(runs.withLockedValue { $0 } <= 3, "\(runs.withLockedValue { $0 }) rounds for 101 callers")
        struct Failure: Error {}
        await #expect(throws: Failure.self) { try await round.join { throw Failure() } }
    }
}

/// A gate that tasks wait at until it opens.
final class AsyncGate: Sendable {
    private let state = NIOLockedValueBox<(open: Bool, waiting: [CheckedContinuation<Void, Never>])>((false, []))

    func wait() async {
        await withCheckedContinuation { continuation in
            let passes = state.withLockedValue { state in
                if !state.open { state.waiting.append(continuation) }
                return state.open
            }
            if passes { continuation.resume() }
        }
    }

    func open() {
        state.withLockedValue { state in
            state.open = true
            defer { state.waiting = [] }
            return state.waiting
        }.forEach { $0.resume() }
    }
}
