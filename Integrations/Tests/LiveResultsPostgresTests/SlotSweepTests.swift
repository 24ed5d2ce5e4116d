import Foundation
import LiveResults
import LiveResultsTestSupport
import Logging
import PostgresNIO
import Testing

@testable import LiveResultsPostgres

/// Running feeds drop the temporary slots of feeds that are gone, and only those: against a real PostgreSQL, a dead
/// owner's slot goes within 30 s, while a live feed's slot (unowned for a moment at each of its reconnections) and
/// slots a user made stay.
@Suite("PostgresChangeFeed: running feeds drop the slots of feeds that are gone", .timeLimit(.minutes(3)))
struct SlotSweepTests {
    /// The replication slots of the test's database.
    static func slots(_ client: PostgresClient) async throws -> Set<String> {
        let rows = try await client.query(
            "SELECT slot_name::text FROM pg_replication_slots WHERE database = current_database()"
        ).collect()
        return Set(try rows.map { try $0.decode(String.self) })
    }

    /// Drops the slots `names` (a database with slots cannot be dropped at the test's end).
    static func drop(_ names: [String], _ client: PostgresClient) async throws {
        for name in names {
            try await client.query(
                "SELECT pg_drop_replication_slot(slot_name) FROM pg_replication_slots WHERE slot_name = \(name)")
        }
    }

    @Test(
        "a dead owner's temporary slot is dropped by a running feed within 30 s, with an event; a user's slots stay",
        arguments: FeedRead.allCases)
    func deadOwner(read: FeedRead) async throws {
        try await withDatabase { client, configuration in
            try await createSeededTodos(client, count: 3)
            // The sweeping feed, with the default timing for its reconnection waits (1 s at most: a grace of 15 s).
            let live = try await FeedTodos(client: client, transport: read.transport(configuration))
            defer { live.cancel() }
            // Slots a user made: one with a name of their own, one that starts as temporary slots do but is not
            // named as the feed names them.
            // Slot names are the cluster's, and the suite's tests run at once: each takes names of its own.
            let unique = String(UInt32.random(in: 0...UInt32.max), radix: 16)
            let users = ["users_slot_\(unique)", "liveresults_tmp_kept_\(unique)"]
            for name in users {
                try await client.query("SELECT pg_create_logical_replication_slot(\(name), 'pgoutput')")
            }
            // The dead owner: a connection that takes the slot's lock and creates the slot as a feed does, then ends
            // as a killed process's connections do.
            let dead = "liveresults_tmp_999999_\(unique)"
            let logger = Logger(label: "SlotSweepTests")
            let owner = try await PostgresConnection.connect(
                configuration: PostgresTestServer.connectionConfiguration(configuration), id: 1, logger: logger)
            try await owner.query(
                "SELECT pg_advisory_lock(hashtext('liveresults_slot'), hashtext(\(dead)))", logger: logger)
            try await owner.query("SELECT pg_create_logical_replication_slot(\(dead), 'pgoutput')", logger: logger)
            #expect(try await Self.slots(client).contains(dead))
            try await owner.close()
            let died = ContinuousClock.now
            let dropped = try await eventually(timeout: .seconds(40)) { try await !Self.slots(client).contains(dead) }
            let took = died.duration(to: .now)
            #expect(dropped)
            #expect(took < .seconds(30), "the dead owner's slot was dropped after \(took)")
            // The slot is gone when the drop commits, a moment before the feed hears back and says so.
            let said = await eventually(timeout: .seconds(5)) { live.feedLog.droppedSlots == [dead] }
            #expect(said, "the feed said it dropped \(live.feedLog.droppedSlots)")
            let left = try await Self.slots(client)
            #expect(left.isSuperset(of: users), "\(left)")
            #expect(live.feedLog.slot.map(left.contains) == true, "the sweeping feed's own slot: \(left)")
            #expect(live.recorder.invalidations == 0)
            print("SlotSweepTests (\(read)): the dead owner's slot was dropped \(took) after its connection closed")
            try await Self.drop(users, client)
        }
    }

    @Test("a live feed's slot is never dropped, though it is unowned for a second at each of its reconnections")
    func liveOwner() async throws {
        try await withDatabase { client, _ in
            try await createSeededTodos(client, count: 3)
            // The sweeper looks every 100 ms (its steps, even idle, are at most 100 ms apart) and drops a slot found
            // unowned for 4 s.
            let sweeperLog = FeedLog()
            let sweeper = try await FeedTodos(
                client: client,
                feed: PostgresChangeFeed(
                    client: client, publication: "liveresults", maximumReadInterval: .milliseconds(100),
                    reconnectBackoff: Backoff(initialDelay: .milliseconds(50), maximumDelay: .seconds(1)),
                    events: { sweeperLog.record($0) }, clock: ContinuousClock(),
                    slotSweep: .init(interval: .milliseconds(100), grace: .seconds(4))))
            defer { sweeper.cancel() }
            // The owner waits one second before each reconnection: its slot is unowned meanwhile, ten looks' worth.
            let ownerLog = FeedLog()
            let owner = try await FeedTodos(
                client: client,
                feed: PostgresChangeFeed(
                    client: client, publication: "liveresults",
                    reconnectBackoff: Backoff(initialDelay: .seconds(1), maximumDelay: .seconds(1), jitter: 0),
                    events: { ownerLog.record($0) }))
            defer { owner.cancel() }
            let slot = try #require(ownerLog.slot)
            // Six reconnections in a row: unowned for about 6 of the next 12 seconds, each time for less than 4 (a
            // second's wait, a connection, a lock).
            for round in 1...6 {
                let ended = try await client.query(
                    """
                    SELECT count(pg_terminate_backend(pid))::int FROM pg_locks
                    WHERE locktype = 'advisory' AND objsubid = 2 AND classid = hashtext('liveresults_slot')::oid
                    AND objid = hashtext(\(slot))::oid
                    """
                ).collect().first?.decode(Int.self)
                #expect(ended == 1, "round \(round): the owner's reading connection")
                #expect(await eventually { ownerLog.readings == round + 1 }, "round \(round): the owner reconnected")
                // The owner stays connected a while, as a feed that reconnected does, and the sweeper's looks meanwhile
                // find the slot owned (a feed whose every connection is shorter than a look's interval, for longer
                // than the grace, could lose its slot: it would create another and refetch).
                try await Task.sleep(for: .seconds(1))
            }
            try await client.query("INSERT INTO todos (title, project, priority) VALUES ('after', 'B', 1)")
            #expect(try await eventually { try await owner.matches(client) })
            #expect(try await Self.slots(client).contains(slot))
            #expect(ownerLog.replacements == 0)
            #expect(sweeperLog.droppedSlots == [])
            #expect(owner.recorder.invalidations == 0)
        }
    }

    @Test("a named slot cannot take the temporary slots' names, which feeds drop")
    func reservedNames() async throws {
        try await withDatabase { client, _ in
            let feed = PostgresChangeFeed(
                client: client, publication: "liveresults", slot: .named("liveresults_tmp_1_ab"))
            await #expect {
                try await feed.setUp(tables: ["todos"])
            } throws: { error in
                guard case .invalidIdentifier("liveresults_tmp_1_ab", _) = error as? PostgresLiveTableError else {
                    return false
                }
                return "\(error)".contains("liveresults_tmp_")
            }
        }
    }
}
