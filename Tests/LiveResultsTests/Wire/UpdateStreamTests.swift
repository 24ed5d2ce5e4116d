import Foundation
import LiveResults
import Testing

/// The update streams of a controller: what they start with, resumes, slow consumers, and their end.
@Suite("Update streams", .timeLimit(.minutes(5)), .tags(.concurrent))
struct UpdateStreamTests {
    func loaded(_ items: [Item] = (0..<20).map { Item($0, section: ["a", "b"][$0 % 2], score: $0) }) async throws
        -> FetchedResultsController<Item>
    {
        let controller = FetchedResultsController.make(FakeStore(items))
        try await controller.performFetch()
        return controller
    }

    /// Reads updates into `replica` until it has the controller's version.
    func follow(
        _ updates: ResultsUpdates<Item>.Iterator, into replica: ResultsReplica<Item>,
        _ controller: FetchedResultsController<Item>
    ) async throws -> [ResultsUpdate<Item>] {
        var read: [ResultsUpdate<Item>] = []
        while replica.version != controller.version {
            let update = try #require(await updates.next())
            try replica.apply(update)
            read.append(update)
        }
        #expect(SnapshotModel(replica.snapshot) == SnapshotModel(controller.snapshot))
        return read
    }

    @Test("the whole results first, then one update per delivered change set; no change, no update")
    func startsWhole() async throws {
        let controller = try await loaded()
        let updates = controller.updates().makeAsyncIterator()
        let replica = ResultsReplica<Item>()
        let first = try await follow(updates, into: replica, controller)
        #expect(first.count == 1 && first[0].base == nil && first[0].version == controller.version)
        let version = controller.version
        controller.apply(.updated(Item(3, section: "b", score: 3)))  // equal content: nothing delivered
        #expect(controller.version == version)
        controller.apply([.updated(Item(3, section: "b", score: 30)), .deleted(4)])
        controller.apply(.inserted(Item(99, section: "c")))
        let next = try await follow(updates, into: replica, controller)
        #expect(next.map(\.base) == [version, next[0].version])
    }

    @Test("a stream opened before the first fetch starts empty and follows the fetch")
    func beforeFetch() async throws {
        let store = FakeStore([Item(1), Item(2)])
        let controller = FetchedResultsController.make(store)
        let updates = controller.updates().makeAsyncIterator()
        let replica = ResultsReplica<Item>()
        let start = try #require(await updates.next())
        #expect(start.content == .results([]))
        try replica.apply(start)
        try await controller.performFetch()
        _ = try await follow(updates, into: replica, controller)
        #expect(replica.fetchedObjects.map(\.id) == [1, 2])
    }

    @Test("a held version resumes with one catch-up change set")
    func resume() async throws {
        let controller = try await loaded()
        let updates = controller.updates().makeAsyncIterator()
        let replica = ResultsReplica<Item>()
        _ = try await follow(updates, into: replica, controller)
        let version = try #require(replica.version)
        for id in 0..<10 { controller.apply(.updated(Item(id, section: "c", score: -id))) }
        controller.apply(.deleted(15))
        let resumed = controller.updates(since: version).makeAsyncIterator()
        let catchUp = try await follow(resumed, into: replica, controller)
        #expect(catchUp.count == 1 && catchUp[0].base == version)
        // Resuming from the current version is an empty catch-up that confirms it.
        let current = controller.updates(since: controller.version).makeAsyncIterator()
        let confirmation = try #require(await current.next())
        #expect(confirmation.base == controller.version && confirmation.version == controller.version)
        #expect(confirmation.content == .changes(base: controller.version, .init()))
    }

    @Test("a catch-up not read yet absorbs the versions after it")
    func catchUpAbsorbs() async throws {
        let controller = try await loaded()
        let updates = controller.updates().makeAsyncIterator()
        let replica = ResultsReplica<Item>()
        _ = try await follow(updates, into: replica, controller)
        let version = try #require(replica.version)
        controller.apply(.deleted(1))
        let resumed = controller.updates(since: version).makeAsyncIterator()
        controller.apply(.deleted(2))
        controller.apply(.inserted(Item(50, section: "a")))
        let read = try await follow(resumed, into: replica, controller)
        #expect(read.count == 1 && read[0].base == version)
    }

    @Test("a version not held gets the whole results: unparsable, another controller's, from the future, too old")
    func notHeld() async throws {
        let controller = try await loaded()
        let other = try await loaded()
        let stream = controller.updates().makeAsyncIterator()
        _ = await stream.next()
        controller.versionHistoryLimit = 3
        let old = controller.version
        for id in 0..<6 { controller.apply(.deleted(id)) }
        let origin = controller.version.description.prefix(16)
        let future = ResultsVersion("\(origin)-\(UInt64.max)")
        for version in [ResultsVersion("garbage"), nil, other.version, future, old] {
            let updates = controller.updates(since: version).makeAsyncIterator()
            let first = try #require(await updates.next())
            #expect(first.base == nil, "\(String(describing: version))")
            #expect(first.version == controller.version)
        }
        #expect(controller.versionHistoryLimit == 3)
        controller.versionHistoryLimit = 0
        #expect(controller.versionHistoryLimit == 1)
    }

    @Test("versions are held while a stream is open and for the retention after the last one closed")
    func retention() async throws {
        let controller = try await loaded()
        #expect(controller.versionHistoryRetention == .seconds(60))
        var stream: ResultsUpdates<Item>.Iterator? = controller.updates().makeAsyncIterator()
        _ = await stream?.next()
        let version = controller.version
        stream = nil
        controller.apply(.deleted(1))
        let resumed = controller.updates(since: version).makeAsyncIterator()
        #expect(await resumed.next()?.base == version, "held within the retention")

        let unretained = try await loaded()
        unretained.versionHistoryRetention = .zero
        var closed: ResultsUpdates<Item>.Iterator? = unretained.updates().makeAsyncIterator()
        _ = await closed?.next()
        let dropped = unretained.version
        closed = nil
        unretained.apply(.deleted(1))
        let whole = unretained.updates(since: dropped).makeAsyncIterator()
        #expect(await whole.next()?.base == nil, "released with no retention")
    }

    @Test("a consumer that does not read holds at most its buffer, then catches up with one update")
    func slowConsumer() async throws {
        let controller = try await loaded()
        let updates = controller.updates(bufferLimit: 4).makeAsyncIterator()
        for id in 0..<50 { controller.apply(.updated(Item(id % 20, section: "a", score: id))) }
        let replica = ResultsReplica<Item>()
        // The whole results not read yet: replaced by the whole results at the newest version.
        let first = try await follow(updates, into: replica, controller)
        #expect(first.count == 1 && first[0].base == nil)
        let version = controller.version
        for id in 0..<50 { controller.apply(.inserted(Item(100 + id, section: "c", score: id))) }
        let catchUp = try await follow(updates, into: replica, controller)
        #expect(catchUp.count == 1 && catchUp[0].base == version)
        #expect(controller.statistics.collapsedUpdateBacklogs >= 2)
        // Below the buffer, every change set is its own update.
        for id in 0..<3 { controller.apply(.deleted(100 + id)) }
        #expect(try await follow(updates, into: replica, controller).count == 3)
    }

    @Test("pauses, coalescing, refetches, resets and pages reach a replica as updates")
    func everyKindOfChange() async throws {
        let server = PageServer(
            (0..<30).map { Item($0, section: ["a", "b", "c"][$0 % 3], score: $0 % 7) }, pageSize: 10)
        let controller = FetchedResultsController(
            definition: server.definition(), sortDescriptors: [SortDescriptor(\Item.score)],
            sectionNameKeyPath: \Item.section)
        try await controller.performFetch()
        let updates = controller.updates().makeAsyncIterator()
        let replica = ResultsReplica<Item>()
        _ = try await follow(updates, into: replica, controller)
        try await controller.loadNextPage()
        _ = try await follow(updates, into: replica, controller)
        controller.pause()
        controller.apply([.deleted(0), .inserted(Item(90, section: "d"))])
        #expect(controller.version == replica.version, "nothing delivered while paused")
        controller.resume()
        #expect(try await follow(updates, into: replica, controller).count == 1)
        controller.coalescingInterval = .seconds(100)
        controller.apply(.deleted(1))
        controller.apply(.deleted(2))
        controller.apply(.deleted(3))
        controller.coalescingInterval = .zero
        _ = try await follow(updates, into: replica, controller)
        try await controller.performFetch()
        _ = try await follow(updates, into: replica, controller)
        controller.reset()
        _ = try await follow(updates, into: replica, controller)
        #expect(replica.fetchedObjects.isEmpty)
    }

    @Test("a cancelled consumer's stream ends")
    func cancelled() async throws {
        let controller = try await loaded()
        let started = EventHarness.Flag()
        let reader = Task {
            var count = 0
            for await _ in controller.updates() {
                count += 1
                started.set()
            }
            return count
        }
        #expect(await EventHarness.eventually { started.isSet })
        controller.apply(.deleted(1))
        reader.cancel()
        let count = await reader.value
        #expect(count >= 1)
    }

    @Test("a controller released while streams are open: they end after what they queued")
    func controllerReleased() async throws {
        var controller: FetchedResultsController<Item>? = try await loaded()
        let updates = controller!.updates()
        controller!.apply(.deleted(1))
        controller!.apply(.deleted(2))
        weak let released = controller
        controller = nil
        #expect(released == nil)
        var read: [ResultsUpdate<Item>] = []
        for await update in updates { read.append(update) }
        #expect(read.count == 3)
        let replica = ResultsReplica<Item>()
        for update in read { try replica.apply(update) }
        #expect(replica.fetchedObjects.count == 18)
    }

    @Test("a hundred streams, half never read: readers follow, the others stay bounded")
    func manyStreams() async throws {
        let controller = try await loaded()
        let idle = (0..<50).map { _ in controller.updates(bufferLimit: 8) }
        let readers = (0..<50).map { _ in
            let updates = controller.updates()
            return Task {
                let replica = ResultsReplica<Item>()
                for await update in updates {
                    try replica.apply(update)
                    // The last change inserts 1,000: a catch-up may skip versions, never the newest.
                    if replica.object(withID: 1_000) != nil { break }
                }
                return replica
            }
        }
        await EventHarness.onThreads(4) { thread in
            for step in 0..<100 {
                controller.apply(
                    .updated(Item(step % 20, section: ["a", "b", "c"][thread % 3], score: step * 4 + thread)))
            }
        }
        controller.apply(.inserted(Item(1_000, section: "z")))
        for reader in readers {
            let replica = try await reader.value
            #expect(replica.version == controller.version)
            #expect(SnapshotModel(replica.snapshot) == SnapshotModel(controller.snapshot))
        }
        #expect(controller.statistics.collapsedUpdateBacklogs >= 50)
        withExtendedLifetime(idle) {}
    }
}
