import Foundation
import Testing

@testable import LiveResults

/// What a window shows and delivers, its bad input, and its lifetime.
@Suite("Live windows", .timeLimit(.minutes(5)), .tags(.concurrent))
struct LiveWindowTests {
    static let items = (0..<20).map { Item($0, section: ["a", "b"][$0 / 10], score: $0) }

    func loaded(_ items: [Item] = Self.items) async throws -> FetchedResultsController<Item> {
        let controller = FetchedResultsController.make(FakeStore(items))
        try await controller.performFetch()
        return controller
    }

    func ids(_ window: LiveWindow<Item>) -> [[Int]] {
        window.sections.map { $0.objects.map(\.id) }
    }

    @Test("each kind of range holds its positions across sections, in window coordinates")
    func ranges() async throws {
        let controller = try await loaded()
        let top = controller.window(.first(3))
        let last = controller.window(.last(2))
        let page = controller.window(.range(offset: 8, limit: 4))
        #expect(ids(top) == [[0, 1, 2]])
        #expect(ids(last) == [[18, 19]])
        #expect(ids(page) == [[8, 9], [10, 11]])
        #expect(page.sections.map(\.name) == ["a", "b"])
        #expect(page.object(at: IndexPath(item: 0, section: 1)).id == 10)
        #expect(page.indexPath(for: Item(11)) == IndexPath(item: 1, section: 1))
        #expect(page.indexPath(for: Item(12)) == nil)
        #expect(page.snapshot.object(withID: 12) == nil)
        #expect(page.fetchedObjects[3].id == 11)
        #expect(page.totalCount == 20 && page.snapshot.count == 4)
    }

    @Test("an insert before the window shifts one entity in and one out; an event after it delivers nothing")
    func shifts() async throws {
        let controller = try await loaded()
        let page = controller.window(.range(offset: 2, limit: 3))
        let recorder = ChangeRecorder<Item>()
        page.delegate = recorder
        controller.apply(.inserted(Item(100, section: "a", score: -1)))
        #expect(ids(page) == [[1, 2, 3]])
        #expect(recorder.changeSets.count == 1)
        #expect(recorder.changeSets[0].insertedItemIDs == [1] && recorder.changeSets[0].deletedItemIDs == [4])
        #expect(recorder.changeSets[0].movedItems.isEmpty)
        controller.apply(.updated(Item(15, section: "b", score: 15, title: "changed")))
        controller.apply(.deleted(19))
        #expect(recorder.changeSets.count == 1)
        controller.apply(.updated(Item(2, section: "a", score: 2, title: "changed")))
        #expect(recorder.changeSets.count == 2 && recorder.changeSets[1].updatedItemIDs == [2])
    }

    @Test("zero limits hold nothing; an offset past the end is empty and fills as entities arrive")
    func emptyAndFilling() async throws {
        let controller = try await loaded()
        let none = controller.window(.first(0))
        let past = controller.window(.range(offset: 21, limit: 5))
        let changes = past.changes
        var iterator = changes.makeAsyncIterator()
        #expect(none.snapshot.isEmpty && past.snapshot.isEmpty)
        controller.apply([.inserted(Item(20, section: "b", score: 20)), .inserted(Item(21, section: "b", score: 21))])
        #expect(ids(past) == [[21]])
        let delivered = try #require(await iterator.next())
        #expect(delivered.insertedSectionNames == ["b"] && delivered.insertedItemIDs == [21])
        #expect(none.snapshot.isEmpty)
    }

    /// A server makes windows from what its clients send (`?offset=&limit=`): the largest values must be windows
    /// like any other, never an overflow when a change is looked up among them.
    @Test("limits and offsets up to Int.max: empty or whole windows, and changes still reach the others")
    func extremeRanges() async throws {
        let controller = try await loaded()
        let all = controller.window(.first(.max))
        let beyond = controller.window(.range(offset: .max, limit: .max))
        let farPage = controller.window(.range(offset: .max - 1, limit: 10))
        let tail = controller.window(.range(offset: 18, limit: .max))
        let last = controller.window(.last(.max))
        let recorder = ChangeRecorder<Item>()
        tail.delegate = recorder
        controller.apply(.inserted(Item(100, section: "a", score: -1)))
        controller.apply(.updated(Item(19, section: "b", score: 19, title: "changed")))
        controller.apply(.deleted(0))
        #expect(all.fetchedObjects.map(\.id) == Array(controller.fetchedObjects.map(\.id)))
        #expect(last.fetchedObjects.count == 20)
        #expect(beyond.snapshot.isEmpty && farPage.snapshot.isEmpty)
        #expect(ids(tail) == [[18, 19]])
        #expect(recorder.changeSets.map(\.insertedItemIDs) == [[17], [], []])
        #expect(recorder.changeSets.map(\.deletedItemIDs) == [[], [], [17]])
        #expect(recorder.changeSets[1].updatedItemIDs == [19])
        beyond.move(to: .range(offset: 0, limit: .max))
        #expect(beyond.fetchedObjects.count == 20)
        // A stream that never drops anything, as a server may ask for.
        let updates = tail.updates(bufferLimit: .max).makeAsyncIterator()
        #expect(try #require(await updates.next()).base == nil)
    }

    /// The first window delivers what coalescing holds; an observer that makes a window from its callback then
    /// must not find the lock of the controller's windows taken by the thread it runs on.
    @Test("the first window, while coalescing holds a change, can be made from an observer's callback")
    func firstWindowFromACallback() async throws {
        let controller = try await loaded()
        controller.coalescingInterval = .seconds(60)
        controller.apply(.deleted(0))  // after a quiet interval: delivered at once
        let made = Locked<[LiveWindow<Item>]>([])
        let (_, subscription) = controller.observeChanges { _, _ in
            let window = controller.window(.first(1))
            made.withLock { $0.append(window) }
        }
        defer { subscription.cancel() }
        controller.apply(.deleted(1))  // held
        let done = DispatchSemaphore(value: 0)
        Thread.detachNewThread {
            _ = controller.window(.first(5))
            done.signal()
        }
        #expect(done.wait(timeout: .now() + 10) == .success, "the first window deadlocked")
        #expect(made.withLock { $0.map(\.fetchedObjects.first?.id) } == [2])
    }

    @Test("negative limits and offsets stop the program with a message naming the value")
    func negativeRanges() async {
        let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            _ = FetchedResultsController.make(FakeStore()).window(.range(offset: -3, limit: 5))
        }
        let message = String(decoding: result?.standardErrorContent ?? [], as: UTF8.self)
        #expect(message.contains("a window's offset must not be negative (got -3)"), "\(message)")
        await #expect(processExitsWith: .failure) {
            _ = FetchedResultsController.make(FakeStore()).window(.first(1)).move(to: .last(-1))
        }
    }

    @Test("a window made before the first fetch fills with it; one made after a reset empties")
    func fetchAndReset() async throws {
        let controller = FetchedResultsController.make(FakeStore(Self.items))
        let top = controller.window(.first(2))
        let recorder = ChangeRecorder<Item>()
        top.delegate = recorder
        #expect(top.snapshot.isEmpty)
        try await controller.performFetch()
        #expect(ids(top) == [[0, 1]] && recorder.changeSets.count == 1)
        controller.reset()
        #expect(top.snapshot.isEmpty && recorder.changeSets.count == 2)
        #expect(recorder.changeSets[1].deletedItemIDs == [0, 1] && recorder.changeSets[1].deletedSections == [0])
    }

    @Test("move(to:) returns and delivers one change set; moving within its own delivery is delivered after it")
    func moves() async throws {
        let controller = try await loaded()
        let window = controller.window(.first(4))
        let delivered = Locked<[ChangeSet<Item>]>([])
        let (_, subscription) = window.observeChanges { changes, _ in
            delivered.withLock { $0.append(changes) }
            // Re-entrant: the window grows once, from inside its own delivery.
            if delivered.withLock({ $0.count }) == 1 { window.move(to: .first(6)) }
        }
        let changes = window.move(to: .range(offset: 2, limit: 4))
        #expect(changes.deletedItemIDs == [0, 1] && changes.insertedItemIDs == [4, 5])
        #expect(ids(window) == [[0, 1, 2, 3, 4, 5]])
        let list = delivered.withLock { $0 }
        #expect(list.count == 2 && list[0] == changes)
        #expect(list[1].insertedItemIDs == [0, 1] && list[1].deletedItems.isEmpty)
        #expect(window.move(to: .first(6)).isEmpty)
        #expect(delivered.withLock { $0.count } == 2)
        subscription.cancel()
    }

    @Test("a window closed from inside a delivery delivers nothing more, and its sequences finish")
    func closeMidDelivery() async throws {
        let controller = try await loaded()
        let window = controller.window(.first(3))
        let count = Locked(0)
        let (_, subscription) = window.observeChanges { _, _ in
            count.withLock { $0 += 1 }
            window.close()
        }
        let changes = window.changes
        controller.apply(.inserted(Item(100, section: "a", score: -1)))
        controller.apply(.inserted(Item(101, section: "a", score: -2)))
        #expect(count.withLock { $0 } == 1 && window.isClosed && window.snapshot.isEmpty)
        var iterator = changes.makeAsyncIterator()
        #expect(await iterator.next()?.insertedItemIDs == [100])  // buffered before the close
        #expect(await iterator.next() == nil)
        subscription.cancel()
    }

    @Test("a window follows pauses and coalescing: nothing while held, then one catch-up change set")
    func pauses() async throws {
        let controller = try await loaded()
        let window = controller.window(.first(3))
        let recorder = ChangeRecorder<Item>()
        window.delegate = recorder
        controller.pause()
        controller.apply(.inserted(Item(100, section: "a", score: -1)))
        controller.apply(.deleted(1))
        #expect(recorder.changeSets.isEmpty && ids(window) == [[0, 1, 2]])
        controller.resume()
        #expect(recorder.changeSets.count == 1 && ids(window) == [[100, 0, 2]])
        controller.coalescingInterval = .seconds(3600)
        controller.apply(.deleted(100))  // the first change of an interval is delivered at once
        controller.apply(.deleted(0))
        controller.apply(.deleted(2))
        #expect(recorder.changeSets.count == 2 && ids(window) == [[0, 2, 3]])
        controller.coalescingInterval = .zero
        #expect(recorder.changeSets.count == 3 && ids(window) == [[3, 4, 5]])
        #expect(recorder.changeSets[2].deletedItemIDs == [0, 2] && recorder.changeSets[2].insertedItemIDs == [4, 5])
    }

    @Test("a window over a paginated controller grows with each page, also while a page loads")
    func pages() async throws {
        let server = PageServer((0..<10).map { Item($0, score: $0) }, pageSize: 3)
        let controller = server.controller(sectioned: false)
        let window = controller.window(.first(5))
        let recorder = ChangeRecorder<Item>()
        window.delegate = recorder
        try await controller.performFetch()
        #expect(ids(window) == [[0, 1, 2]])
        let gate = server.holdRequests()
        let load = Task { try await controller.loadNextPage() }
        #expect(await server.started(2))
        controller.apply(.inserted(Item(50, score: 1)))
        #expect(ids(window) == [[0, 1, 50, 2]])
        gate.open()
        _ = try await load.value
        #expect(ids(window) == [[0, 1, 50, 2, 3]])
        #expect(recorder.changeSets.count == 3)
    }

    @Test("10,000 windows made and released from many threads at once leave the registry consistent")
    func manyWindowsAtOnce() async throws {
        let controller = try await loaded((0..<200).map { Item($0, score: $0) })
        let kept = Locked<[LiveWindow<Item>]>([])
        await EventHarness.onThreads(8) { thread in
            for index in 0..<1_250 {
                let window = controller.window(.range(offset: (index * 7 + thread) % 220, limit: index % 13))
                if index % 100 == 0 { kept.withLock { $0.append(window) } }
                if index % 50 == 0 {
                    controller.apply(.updated(Item(index % 200, score: index % 200, title: "\(index)")))
                }
            }
        }
        let windows = kept.withLock { $0 }
        #expect(windows.count == 8 * 13)
        controller.apply(.inserted(Item(1_000, score: -1)))
        let all = controller.snapshot.fetchedObjects.map(\.id)
        for window in windows {
            let positions = window.range.positions(count: all.count)
            #expect(window.fetchedObjects.map(\.id) == Array(all[positions]))
        }
    }

    @Test("a replica follows a window's updates, and resumes with one catch-up")
    func overTheWire() async throws {
        let controller = try await loaded()
        let window = controller.window(.range(offset: 8, limit: 4))
        let replica = ResultsReplica<Item>()
        var updates = window.updates().makeAsyncIterator()
        try replica.apply(try #require(await updates.next()))
        #expect(replica.fetchedObjects.map(\.id) == [8, 9, 10, 11])
        controller.apply(.inserted(Item(100, section: "a", score: -1)))
        try replica.apply(try #require(await updates.next()))
        #expect(SnapshotModel(replica.snapshot) == SnapshotModel(window.snapshot))
        let resumeFrom = try #require(replica.version)
        updates = window.updates().makeAsyncIterator()  // a second stream, as after a reconnect
        controller.apply([.deleted(8), .deleted(100), .inserted(Item(101, section: "b", score: 10))])
        window.move(to: .range(offset: 7, limit: 5))
        let resumed = window.updates(since: resumeFrom).makeAsyncIterator()
        let catchUp = try #require(await resumed.next())
        #expect(catchUp.base == resumeFrom && catchUp.version == window.version)
        try replica.apply(catchUp)
        #expect(SnapshotModel(replica.snapshot) == SnapshotModel(window.snapshot))
        let whole = window.wholeResults()
        #expect(whole.base == nil && whole.version == window.version)
        let fresh = ResultsReplica<Item>()
        try fresh.apply(whole)
        #expect(SnapshotModel(fresh.snapshot) == SnapshotModel(window.snapshot))
        let stranger = ResultsVersion("00000000000000ff-1")
        let restart = window.updates(since: stranger).makeAsyncIterator()
        #expect(try #require(await restart.next()).base == nil)
    }

    @Test(
        "a stream that overflows its buffer gets a catch-up change set from what it read, not the whole window",
        arguments: [1, 128, 900])
    func overflowCatchesUp(bufferLimit: Int) async throws {
        let controller = try await loaded()
        let window = controller.window(.first(6))
        let replica = ResultsReplica<Item>()
        let updates = window.updates(bufferLimit: bufferLimit).makeAsyncIterator()
        try replica.apply(try #require(await updates.next()))
        let read = try #require(replica.version)
        for step in 0..<(bufferLimit + 50) {
            controller.apply(.updated(Item(step % 6, section: "a", score: step % 6, title: "\(step)")))
        }
        let catchUp = try #require(await updates.next())
        #expect(catchUp.base == read, "a change set from the version read")
        try replica.apply(catchUp)
        #expect(replica.version == window.version)
        #expect(SnapshotModel(replica.snapshot) == SnapshotModel(window.snapshot))
    }
}
