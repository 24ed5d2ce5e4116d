import NIOConcurrencyHelpers
import Testing

@testable import LiveResultsPostgres

/// A subscription's delivery queue, one transition at a time: which thread delivers a change feed's hand-over (the
/// reading task itself, as one batch, or a task), and that the commit order holds across the two.
@Suite("PostgresLiveTable: the delivery queue's hand-overs")
struct DeliveryQueueTests {
    typealias Item = _TransactionBatch.Item

    /// A transaction of `count` deleted rows, with ids from `first` on.
    static func transaction(_ first: Int, count: Int = 1) -> [Item] {
        (first..<first + count).map { .deleted(id: "\($0)") }
    }

    /// The ids of deleted rows among `items`, in order, `*` for any other item.
    static func ids(_ items: [Item]) -> [String] {
        items.map { if case .deleted(let id) = $0 { id } else { "*" } }
    }

    /// The items to deliver at once, `nil` when the hand-over is not to be delivered by its caller.
    static func here(_ handOver: _DeliveryQueue.HandOver) -> [Item]? {
        if case .deliverHere(let items) = handOver { items } else { nil }
    }

    static func startsTask(_ handOver: _DeliveryQueue.HandOver) -> Bool {
        if case .startTask = handOver { true } else { false }
    }

    static func isNone(_ handOver: _DeliveryQueue.HandOver) -> Bool {
        if case .none = handOver { true } else { false }
    }

    /// A queue whose subscriber's last delivery was quick.
    static func keepingUp() -> _DeliveryQueue {
        var queue = _DeliveryQueue()
        queue.recordDelivery(quick: true)
        return queue
    }

    @Test("The first hand-over goes to a task; after a quick delivery the next are delivered at once, until a slow one")
    func quickDeliveries() {
        var queue = _DeliveryQueue()
        #expect(Self.startsTask(queue.handOver([Self.transaction(1)], inlineLimit: 64)))
        queue.recordDelivery(quick: true)
        #expect(queue.nextBatch().map(Self.ids) == ["1"])
        #expect(queue.nextBatch() == nil)
        #expect(Self.here(queue.handOver([Self.transaction(2)], inlineLimit: 64)).map(Self.ids) == ["2"])
        // The subscriber took long with it: the next hand-over goes to a task, and the caller is not held again.
        queue.recordDelivery(quick: false)
        let startsTask = queue.finishInline()
        #expect(!startsTask)
        #expect(Self.startsTask(queue.handOver([Self.transaction(3)], inlineLimit: 64)))
        #expect(Self.isNone(queue.handOver([Self.transaction(4)], inlineLimit: 64)))
        queue.recordDelivery(quick: true)
        #expect(queue.nextBatch().map(Self.ids) == ["3", "4"])
        #expect(queue.nextBatch() == nil)
        #expect(Self.here(queue.handOver([Self.transaction(5)], inlineLimit: 64)) != nil)
    }

    @Test("An idle queue that keeps up gives a hand-over back as one batch to deliver at once, and is idle after")
    func idleDeliversHere() {
        var queue = Self.keepingUp()
        let handOver = queue.handOver([Self.transaction(1), Self.transaction(2, count: 2)], inlineLimit: 64)
        #expect(Self.here(handOver).map(Self.ids) == ["1", "2", "3"])
        // While the caller delivers, a marker (a fetch's wait) is queued behind the batch, not run before it.
        let claimed = queue.enqueue([.marker(_DeliveryMarker {})])
        #expect(!claimed)
        let startsTask = queue.finishInline()
        #expect(startsTask)
        #expect(queue.nextBatch().map(Self.ids) == ["*"])
        #expect(queue.nextBatch() == nil)
        // Idle again: the next hand-over is delivered at once too.
        #expect(Self.here(queue.handOver([Self.transaction(4)], inlineLimit: 64)).map(Self.ids) == ["4"])
        let startsAnother = queue.finishInline()
        #expect(!startsAnother)
        #expect(Self.here(queue.handOver([Self.transaction(5)], inlineLimit: 64)) != nil)
    }

    @Test("A hand-over larger than the limit, with a row to fetch or an invalidation goes to a task; later ones queue")
    func busyQueues() {
        var queue = Self.keepingUp()
        #expect(Self.startsTask(queue.handOver([Self.transaction(1, count: 3)], inlineLimit: 2)))
        // The task delivers: a small hand-over meanwhile is queued behind, in commit order.
        #expect(Self.isNone(queue.handOver([Self.transaction(4)], inlineLimit: 2)))
        #expect(queue.nextBatch().map(Self.ids) == ["1", "2", "3", "4"])
        #expect(queue.nextBatch() == nil)
        for special: Item in [.fetch(id: "5", isInsert: false), .invalidated] {
            #expect(Self.startsTask(queue.handOver([[special]], inlineLimit: 64)))
            #expect(queue.nextBatch().map(Self.ids) == ["*"])
            #expect(queue.nextBatch() == nil)
        }
        #expect(Self.here(queue.handOver([Self.transaction(6)], inlineLimit: 64)) != nil)
    }

    @Test("While a batch is delivered at once, the next hand-over queues, and its caller starts the task after")
    func handOverDuringInline() {
        var queue = Self.keepingUp()
        #expect(Self.here(queue.handOver([Self.transaction(1)], inlineLimit: 64)) != nil)
        #expect(Self.isNone(queue.handOver([Self.transaction(2)], inlineLimit: 64)))
        let startsTask = queue.finishInline()
        #expect(startsTask)
        #expect(queue.nextBatch().map(Self.ids) == ["2"])
        #expect(queue.nextBatch() == nil)
    }

    @Test("A queue that is not empty never delivers a hand-over ahead of what it holds")
    func queuedFirst() {
        var queue = Self.keepingUp()
        // A notification path's transaction claimed the delivery and is still queued.
        let claimed = queue.enqueue(Self.transaction(1))
        #expect(claimed)
        #expect(Self.isNone(queue.handOver([Self.transaction(2)], inlineLimit: 64)))
        #expect(queue.next().map(Self.ids) == ["1"])
        #expect(queue.next().map(Self.ids) == ["2"])
        #expect(queue.next() == nil)
    }

    @Test("A stopped queue takes nothing; one stopped during a delivery at once ends it")
    func stopped() {
        var queue = Self.keepingUp()
        #expect(Self.isNone(queue.handOver([], inlineLimit: 64)))
        #expect(Self.here(queue.handOver([Self.transaction(1)], inlineLimit: 64)) != nil)
        #expect(queue.stop().isEmpty)
        let startsTask = queue.finishInline()
        #expect(!startsTask)
        #expect(Self.isNone(queue.handOver([Self.transaction(2)], inlineLimit: 64)))
    }

    @Test("A feed subscription hands one hand-over's transactions over together, and holds those after a TRUNCATE")
    func subscriptionHandOver() {
        let delivered = NIOLockedValueBox<[[[Item]]]>([])
        let subscription = _FeedSubscription(
            table: ObjectIdentifier(Self.self), qualifiedTable: "todos", idColumn: "id",
            deliver: { transactions in delivered.withLockedValue { $0.append(transactions) } }, report: { _ in },
            afterDeliveries: { $0() })
        subscription.release(snapshot: _Snapshot.none, invalidating: false)
        subscription.offer([
            (1, Self.transaction(1)), (2, Self.transaction(2)), (3, [.invalidated]), (4, Self.transaction(4)),
        ])
        let calls = delivered.withLockedValue { $0 }
        #expect(calls.count == 1)
        #expect(calls.first?.map(Self.ids) == [["1"], ["2"], ["*"]])
        // The transaction after the TRUNCATE waits for the refetch's snapshot, which does not see it.
        subscription.release(snapshot: _Snapshot.none, invalidating: false)
        subscription.flush()
        #expect(delivered.withLockedValue { $0.last?.map(Self.ids) } == [["4"]])
    }
}
