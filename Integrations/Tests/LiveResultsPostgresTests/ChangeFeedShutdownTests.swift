import Foundation
import LiveResults
import LiveResultsTestSupport
import NIOConcurrencyHelpers
import PostgresNIO
import Testing

@testable import LiveResultsPostgres

/// `PostgresChangeFeed.shutdown(timeout:)` against a real PostgreSQL: a temporary slot is gone when it returns (no
/// sweep waited for), a named one stays, and a database out of reach makes it return at its timeout.
@Suite("PostgresChangeFeed: a shutdown drops the feed's temporary slot, within its timeout", .timeLimit(.minutes(3)))
struct ChangeFeedShutdownTests {
    /// Whether `event` says the feed dropped its own slot `slot`.
    static func dropped(_ slot: String, _ event: PostgresChangeFeedEvent) -> Bool {
        if case .slotDropped(slot) = event { true } else { false }
    }

    @Test(
        "shutdown() returns once the feed's temporary slot is dropped, says so, and the feed reads no more",
        arguments: FeedRead.allCases)
    func temporarySlotDropped(read: FeedRead) async throws {
        try await withDatabase { client, configuration in
            try await createSeededTodos(client, count: 3)
            let live = try await FeedTodos(client: client, transport: read.transport(configuration))
            defer { live.cancel() }
            // A hold too, as a server keeps: the shutdown ends the run whatever holds it.
            let hold = live.feed.keepReading()
            defer { hold.cancel() }
            let slot = try #require(live.feedLog.slot)
            #expect(try await SlotSweepTests.slots(client).contains(slot))
            let started = ContinuousClock.now
            let result = await live.feed.shutdown()
            let took = started.duration(to: .now)
            #expect(result == .completed)
            #expect(took < PostgresChangeFeed.defaultShutdownTimeout, "the shutdown took \(took)")
            // At once: no sweep waited for (one would take 15 s at least).
            let left = try await SlotSweepTests.slots(client)
            #expect(!left.contains(slot), "slots left: \(left)")
            let events = live.feedLog.all
            #expect(events.contains { Self.dropped(slot, $0) }, "\(events)")
            #expect(events.contains { if case .stopped = $0 { true } else { false } })
            // A shut down feed starts no run: a new hold, or a second shutdown, create no slot.
            let runs = live.feed.machine.withLockedValue { $0.lastRun }
            let again = live.feed.keepReading()
            defer { again.cancel() }
            #expect(await live.feed.shutdown() == .completed)
            #expect(live.feed.machine.withLockedValue { $0.lastRun } == runs)
            #expect(try await SlotSweepTests.slots(client).isEmpty)
            print("ChangeFeedShutdownTests (\(read)): shutdown() dropped the slot in \(took)")
        }
    }

    /// A shutdown that ends a run whose reading task is still being started (its first hold came from another
    /// task a moment before) waits for that task too: it may have created the slot.
    @Test("shutdown() racing a feed's first hold: when it returns, the feed has no slot left")
    func shutdownRacingFirstHold() async throws {
        try await withDatabase { client, _ in
            try await createSeededTodos(client, count: 3)
            for round in 0..<20 {
                let feed = PostgresChangeFeed(client: client, publication: "liveresults")
                try await feed.setUp(tables: ["todos"])
                let hold = Task { feed.keepReading() }
                if round.isMultiple(of: 2) { await Task.yield() }
                let result = await feed.shutdown()
                await hold.value.cancel()
                #expect(result == .completed, "round \(round)")
                let left = try await SlotSweepTests.slots(client)
                #expect(left.isEmpty, "round \(round): slots left: \(left)")
                guard left.isEmpty else { break }
            }
        }
    }

    @Test("shutdown() keeps a named slot, for the next run to resume from")
    func namedSlotKept() async throws {
        try await withDatabase { client, _ in
            try await createSeededTodos(client, count: 3)
            // Slot names are the cluster's, and tests run at once: a name of its own.
            let name = "shutdown_kept_\(String(UInt32.random(in: 0...UInt32.max), radix: 16))"
            let live = try await FeedTodos(client: client, slot: .named(name))
            defer { live.cancel() }
            #expect(await live.feed.shutdown() == .completed)
            #expect(try await SlotSweepTests.slots(client) == [name])
            #expect(!live.feedLog.all.contains { Self.dropped(name, $0) })
            // The slot is inactive once its reader left: the test drops it, as an operator would.
            #expect(
                await eventually {
                    try? await SlotSweepTests.drop([name], client)
                    return (try? await SlotSweepTests.slots(client))?.isEmpty == true
                })
        }
    }

    /// A cluster of its own, stopped for a while: the bound is timed, and beside the parallel suite the machine's
    /// load would be measured instead.
    @Test("with the database out of reach, shutdown() returns at its timeout, and the slot is left to the sweeps")
    func databaseOutOfReach() async throws {
        let cluster = try TemporaryPostgres()
        defer { cluster.stop() }
        try await PostgresTestServer(cluster: cluster).withDatabase { client, _ in
            try await createSeededTodos(client, count: 3)
            let live = try await FeedTodos(client: client)
            defer { live.cancel() }
            let slot = try #require(live.feedLog.slot)
            // The server stops, closing every connection, and starts again 8 s later.
            let restart = Task.detached { try cluster.restart(downtime: .seconds(8)) }
            #expect(await eventually(timeout: .seconds(20)) { live.feedLog.failures > 0 }, "the feed lost the server")
            let started = ContinuousClock.now
            let result = await live.feed.shutdown(timeout: .seconds(1))
            let took = started.duration(to: .now)
            #expect(result == .timedOut)
            #expect(took < .seconds(3), "the shutdown took \(took)")
            try await restart.value
            // The drop was cancelled at the timeout; whichever way it ended, the feed says so.
            let ended = await eventually(timeout: .seconds(20)) {
                live.feedLog.all.contains { event in
                    switch event {
                    case .slotLeft(slot, _): true
                    case .slotDropped(slot): true
                    default: false
                    }
                }
            }
            #expect(ended, "\(live.feedLog.all)")
            let outcome = live.feedLog.all.last { event in
                switch event {
                case .slotLeft, .slotDropped: true
                default: false
                }
            }
            print(
                "ChangeFeedShutdownTests: out of reach, shutdown() returned \(result) after \(took); then \(outcome, default: "nothing")"
            )
            // A database with a slot cannot be dropped: the test drops the one left, once the server is back.
            #expect(
                await eventually(timeout: .seconds(20)) {
                    try? await SlotSweepTests.drop([slot], client)
                    return (try? await SlotSweepTests.slots(client))?.isEmpty == true
                })
        }
    }
}
