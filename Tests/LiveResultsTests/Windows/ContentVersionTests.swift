import Foundation
import LiveResultsTesting
import Testing

@testable import LiveResults

/// Versions named by a window's contents (``LiveWindow/nameVersionsByContents(scope:)``): two controllers
/// that receive the same events in the same order, as two server processes following one database do, name
/// their windows' versions alike, so a client resumes on either with one catch-up.
@Suite struct ContentVersionTests {
    /// One server process: a controller of its own over the same rows, and a window of it whose versions are
    /// named by contents, held because a stream of it is open (another client's).
    struct Process {
        let controller: FetchedResultsController<Item>
        let window: LiveWindow<Item>
        let otherClient: ResultsUpdates<Item>

        init(_ items: [Item], range: WindowRange, scope: String = "the query") async throws {
            controller = FetchedResultsController.make(FakeStore(items))
            try await controller.performFetch()
            window = controller.window(range)
            window.nameVersionsByContents(scope: scope)
            otherClient = window.updates()
        }
    }

    /// A client's replica of a window, following one process's stream at a time.
    struct Client {
        let replica = ResultsReplica<Item>()
        var updates: ResultsUpdates<Item>.Iterator
        var catchUps = 0
        var wholes = 0

        init(following process: Process) async throws {
            updates = process.window.updates().makeAsyncIterator()
            try replica.apply(try #require(await updates.next()))
        }

        /// Reads what the stream has until the replica is at the window's version.
        mutating func catchUp(with process: Process) async throws {
            while replica.version != process.window.version {
                try replica.apply(try #require(await updates.next()))
            }
        }

        /// Reconnects to `process` with the version the replica has.
        mutating func reconnect(to process: Process) async throws {
            updates = process.window.updates(since: replica.version).makeAsyncIterator()
            let first = try #require(await updates.next())
            if first.base == nil {
                wholes += 1
            } else {
                #expect(first.base == replica.version)
                catchUps += 1
            }
            try replica.apply(first)
        }
    }

    static func randomEvents(
        _ live: [Int], nextID: inout Int, _ random: inout SeededGenerator
    ) -> [EntityEvent<Item>] {
        (0..<Int.random(in: 1...3, using: &random)).map { _ in
            switch Int.random(in: 0..<3, using: &random) {
            case 0:
                defer { nextID += 1 }
                return .inserted(WindowChainTests.randomItem(nextID, &random))
            case 1:
                guard let id = live.randomElement(using: &random) else { fallthrough }
                return .updated(WindowChainTests.randomItem(id, &random))
            default:
                guard let id = live.randomElement(using: &random) else {
                    defer { nextID += 1 }
                    return .inserted(WindowChainTests.randomItem(nextID, &random))
                }
                return .deleted(id)
            }
        }
    }

    /// Two processes receive the same random events, the second now and then some steps behind; the client
    /// reconnects to either at random. Its replica always equals the window of the process it follows, each
    /// reconnect to a process that has reached the client's contents is one catch-up, and one that has not
    /// is the whole window.
    @Test(arguments: [1, 2, 3, 4, 5, 6] as [UInt64])
    func reconnectsToEitherProcess(seed: UInt64) async throws {
        var random = SeededGenerator(seed: seed)
        let items = (0..<30).map { WindowChainTests.randomItem($0, &random) }
        let range = WindowChainTests.randomRange(&random)
        let processes = [try await Process(items, range: range), try await Process(items, range: range)]
        var client = try await Client(following: processes[0])
        var following = 0
        var behind: [[EntityEvent<Item>]] = []  // what the second process has not received yet
        var nextID = 100
        var expectedCatchUps = 0
        for _ in 0..<300 {
            let events = Self.randomEvents(
                processes[0].controller.fetchedObjects.map(\.id), nextID: &nextID, &random)
            processes[0].controller.apply(events)
            behind.append(events)
            if Int.random(in: 0..<4, using: &random) > 0 {
                for events in behind { processes[1].controller.apply(events) }
                behind = []
            }
            try await client.catchUp(with: processes[following])
            if Int.random(in: 0..<8, using: &random) == 0 {
                following = 1 - following
                // The client's contents are the followed process's now; the other one has them when it has
                // received every event.
                if behind.isEmpty { expectedCatchUps += 1 }
                let before = (client.catchUps, client.wholes)
                try await client.reconnect(to: processes[following])
                if behind.isEmpty { #expect(client.catchUps == before.0 + 1, "a process at the same contents") }
            }
            #expect(SnapshotModel(client.replica.snapshot) == SnapshotModel(processes[following].window.snapshot))
            if Int.random(in: 0..<20, using: &random) == 0 {
                // The name kept up change by change is the one a new window computes from the contents.
                let fresh = processes[0].controller.window(range)
                fresh.nameVersionsByContents(scope: "the query")
                #expect(fresh.version == processes[0].window.version)
                fresh.close()
            }
        }
        #expect(client.catchUps >= expectedCatchUps && expectedCatchUps > 0)
    }

    /// Versions of another scope, or contents a process never held, get the whole window; local versions
    /// still resolve; names are the same for the same contents and differ for others.
    @Test func namesAndScopes() async throws {
        let items = (0..<10).map { Item($0, section: "a", score: $0) }
        let one = try await Process(items, range: .first(5))
        let two = try await Process(items, range: .first(5))
        let other = try await Process(items, range: .first(5), scope: "another query")
        #expect(one.window.version == two.window.version)
        #expect(one.window.version != other.window.version)
        #expect(one.window.wholeResults().version == one.window.version)
        let start = one.window.version
        one.controller.apply(.updated(Item(2, section: "a", score: 2, title: "changed")))
        #expect(one.window.version != start)
        // Back to the same contents: the same name as before.
        one.controller.apply(.updated(Item(2, section: "a", score: 2)))
        #expect(one.window.version == start)
        let changed = Item(3, section: "a", score: 3, title: "changed")
        one.controller.apply(.updated(changed))
        var resumed = other.window.updates(since: one.window.version).makeAsyncIterator()
        #expect(try #require(await resumed.next()).base == nil, "another scope's version")
        resumed = two.window.updates(since: one.window.version).makeAsyncIterator()
        #expect(try #require(await resumed.next()).base == nil, "contents the process never had")
        two.controller.apply(.updated(changed))
        resumed = two.window.updates(since: one.window.version).makeAsyncIterator()
        #expect(try #require(await resumed.next()).base == one.window.version, "the same contents")
        resumed = two.window.updates(since: start).makeAsyncIterator()
        let catchUp = try #require(await resumed.next())
        #expect(catchUp.base == start && catchUp.version == two.window.version)
        guard case .changes(_, let changes) = catchUp.content else {
            Issue.record("a catch-up carries a change set")
            return
        }
        #expect(changes.updatedItems.count == 1 && changes.insertedItems.isEmpty && changes.deletedItems.isEmpty)
    }

    /// A stream that reads late (its buffer deeper than the 1,024 versions a window holds at most) still gets
    /// updates whose bases name the versions before them, so its replica applies every one.
    @Test func aStreamFarBehindKeepsItsNames() async throws {
        let items = (0..<20).map { Item($0, section: "a", score: $0) }
        let process = try await Process(items, range: .first(10))
        let replica = ResultsReplica<Item>()
        let updates = process.window.updates(bufferLimit: 2_000).makeAsyncIterator()
        try replica.apply(try #require(await updates.next()))
        for step in 0..<1_500 {
            process.controller.apply(.updated(Item(step % 10, section: "a", score: step % 10, title: "\(step)")))
        }
        while replica.version != process.window.version {
            try replica.apply(try #require(await updates.next()))
        }
        #expect(SnapshotModel(replica.snapshot) == SnapshotModel(process.window.snapshot))
    }
}
