import Foundation
import LiveResults
import LiveResultsTesting
import Testing

/// The `changes` sequence (``ResultsChanges``): its buffering policies against a model queue, a waiting
/// `next()` cancelled, and its end when the controller goes away (the *ChangeSetContract* article).
@Suite("ResultsChanges", .timeLimit(.minutes(5)), .tags(.concurrent))
struct ResultsChangesTests {
    static let policies: [ResultsChanges<Item>.BufferingPolicy] = [
        .unbounded, .bufferingOldest(0), .bufferingOldest(1), .bufferingOldest(3), .bufferingNewest(0),
        .bufferingNewest(1), .bufferingNewest(3),
    ]

    /// The change sets a subscription keeps, by the policy's rule, done the slow way.
    struct ModelBuffer {
        let policy: ResultsChanges<Item>.BufferingPolicy
        var unread: [ChangeSet<Item>] = []

        mutating func deliver(_ changes: ChangeSet<Item>) {
            switch policy {
            case .unbounded: unread.append(changes)
            case .bufferingOldest(let limit): if unread.count < limit { unread.append(changes) }
            case .bufferingNewest(let limit):
                guard limit > 0 else { return }
                if unread.count == limit { unread.removeFirst() }
                unread.append(changes)
            }
        }
    }

    /// Random single events, with reads of what is buffered between them (a read only when the model
    /// holds something, so that it never waits): every read gives the model's oldest change set; after
    /// the controller is released, what is left is read, then the sequence ends.
    @Test(arguments: policies)
    func buffersAsThePolicySays(_ policy: ResultsChanges<Item>.BufferingPolicy) async throws {
        for seed in UInt64(1)...4 {
            var random = SeededGenerator(seed: seed)
            var controller: FetchedResultsController<Item>? = .make(FakeStore((0..<20).map { Item($0) }))
            try await controller!.performFetch()
            var model = ModelBuffer(policy: policy)
            var iterator = controller!.changes(bufferingPolicy: policy).makeAsyncIterator()
            var present = Set(0..<20)
            var nextID = 20
            for step in 0..<400 {
                if Bool.random(using: &random) || present.isEmpty {
                    let id = nextID
                    nextID += 1
                    present.insert(id)
                    model.deliver(controller!.apply(.inserted(Item(id, score: Int.random(in: 0..<50, using: &random)))))
                } else if Int.random(in: 0..<3, using: &random) == 0 {
                    // An event that changes nothing: no change set is delivered.
                    #expect(controller!.apply(.deleted(-1)).isEmpty)
                } else {
                    let id = present.randomElement(using: &random)!
                    present.remove(id)
                    model.deliver(controller!.apply(.deleted(id)))
                }
                while !model.unread.isEmpty && Int.random(in: 0..<4, using: &random) == 0 {
                    let read = await iterator.next()
                    #expect(read == model.unread.removeFirst(), "seed \(seed), step \(step)")
                }
            }
            controller = nil
            for expected in model.unread {
                #expect(await iterator.next() == expected, "seed \(seed): buffered before the release")
            }
            #expect(await iterator.next() == nil, "seed \(seed): finished after the release")
        }
    }

    /// Change sets buffered by the hundred, more than a chunk of the buffer holds, come out in order;
    /// reading some between the deliveries empties and refills the buffer's chunks.
    @Test func aLongBacklogIsReadInOrder() async throws {
        let controller = FetchedResultsController.make(FakeStore([]), sectioned: false)
        try await controller.performFetch()
        var iterator = controller.changes.makeAsyncIterator()
        var delivered: [ChangeSet<Item>] = []
        var read: [ChangeSet<Item>] = []
        for round in 0..<4 {
            for index in 0..<(100 * round + 30) {
                delivered.append(controller.apply(.inserted(Item(round * 1000 + index))))
            }
            for _ in 0..<(delivered.count - read.count - 10 * round) {
                read.append(try #require(await iterator.next()))
            }
        }
        while read.count < delivered.count { read.append(try #require(await iterator.next())) }
        #expect(read == delivered)
    }

    /// A task waiting in `next()` that is cancelled gets `nil`, whether the cancellation comes before or
    /// while it waits; the sequence stays finished, and the controller goes on delivering to the others.
    @Test(arguments: [false, true])
    func aWaitingNextThatIsCancelledReturnsNil(cancelsFirst: Bool) async throws {
        let controller = FetchedResultsController.make(FakeStore([Item(1), Item(2)]))
        try await controller.performFetch()
        let cancelled = controller.changes
        let staying = controller.changes
        let reader = Task {
            if cancelsFirst { withUnsafeCurrentTask { $0?.cancel() } }
            var iterator = cancelled.makeAsyncIterator()
            let first = await iterator.next()
            let second = await iterator.next()
            return (first, second)
        }
        if !cancelsFirst {
            // Real time: usually lets the reader suspend in `next()` first, so that the cancellation ends a waiting
            // call (the other argument cancels before the call); both orders must end the sequence.
            try await Task.sleep(for: .milliseconds(20))
            reader.cancel()
        }
        let (first, second) = await reader.value
        #expect(first == nil)
        #expect(second == nil)
        let changes = controller.apply(.deleted(1))
        var after = cancelled.makeAsyncIterator()
        #expect(await after.next() == nil, "nothing is buffered after the cancellation")
        #expect(await EventHarness.collect(1, from: staying) == [changes])
    }

    /// A consumer waiting when the controller is released gets `nil`.
    @Test func aWaitingNextEndsWhenTheControllerIsReleased() async throws {
        var controller: FetchedResultsController<Item>? = .make(FakeStore([Item(1)]))
        try await controller!.performFetch()
        let changes = controller!.changes
        let reader = Task {
            var iterator = changes.makeAsyncIterator()
            return await iterator.next()
        }
        // Real time: usually lets the reader suspend in `next()` before the release, the case tested; a reader that
        // calls it after gets `nil` as well.
        try await Task.sleep(for: .milliseconds(20))
        weak let released = controller
        controller = nil
        #expect(released == nil)
        #expect(await reader.value == nil)
    }

    /// A change set delivered while the consumer waits reaches it at once; many threads delivering to
    /// one reader lose nothing and keep each thread's order.
    @Test func aReaderWaitingOnManyThreadsGetsEveryChangeSetInOrder() async throws {
        let controller = FetchedResultsController.make(FakeStore([]), sectioned: false)
        try await controller.performFetch()
        let changes = controller.changes
        let reader = Task { await EventHarness.collect(400, from: changes) }
        await EventHarness.onThreads(4) { thread in
            for index in 0..<100 { controller.apply(.inserted(Item(thread * 1000 + index))) }
        }
        let read = await reader.value
        #expect(read.count == 400)
        let inserted = read.flatMap(\.insertedItemIDs)
        for thread in 0..<4 {
            #expect(inserted.filter { $0 / 1000 == thread } == (0..<100).map { thread * 1000 + $0 })
        }
    }

    /// Releasing the sequence ends the subscription: the controller holds nothing for it any more (a
    /// new subscription still receives).
    @Test func aReleasedSequenceIsUnsubscribed() async throws {
        let controller = FetchedResultsController.make(FakeStore([Item(1), Item(2)]))
        try await controller.performFetch()
        weak var dropped: AnyObject?
        do {
            let changes = controller.changes
            dropped = Mirror(reflecting: changes).children.first?.value as AnyObject?
        }
        #expect(dropped == nil, "the subscription is released with its sequence")
        let changes = controller.changes
        let delivered = controller.apply(.deleted(1))
        #expect(await EventHarness.collect(1, from: changes) == [delivered])
    }
}
