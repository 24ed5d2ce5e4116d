import Dispatch
import Foundation
import LiveResults
import Testing

/// `CollapsibleSections.callbackScheduler`: the view's handlers and delegate run where it says, in order, and
/// its `changes` sequences receive each change set at once.
@Suite("Collapsible sections' scheduler", .timeLimit(.minutes(5)), .tags(.concurrent))
struct CollapsibleSectionsSchedulerTests {
    /// Records each delegate call and handler call with whether it ran on the probe's queue.
    final class QueueProbe: CollapsibleSectionsDelegate, Sendable {
        private let key = DispatchSpecificKey<Bool>()
        private let received = Locked<[(changes: ChangeSet<Item>, onQueue: Bool)]>([])
        private let handled = Locked<[(changes: ChangeSet<Item>, onQueue: Bool)]>([])

        init(queue: DispatchQueue) {
            queue.setSpecific(key: key, value: true)
        }

        var deliveries: [(changes: ChangeSet<Item>, onQueue: Bool)] { received.withLock { $0 } }
        var handlerCalls: [(changes: ChangeSet<Item>, onQueue: Bool)] { handled.withLock { $0 } }

        func collapsibleSections(_ view: CollapsibleSections<Item>, didChangeContentWith changes: ChangeSet<Item>) {
            let onQueue = DispatchQueue.getSpecific(key: key) == true
            received.withLock { $0.append((changes, onQueue)) }
        }

        func handle(_ changes: ChangeSet<Item>) {
            let onQueue = DispatchQueue.getSpecific(key: key) == true
            handled.withLock { $0.append((changes, onQueue)) }
        }
    }

    static let items = [
        Item(1, section: "a", score: 1), Item(2, section: "a", score: 2), Item(3, section: "b", score: 3),
    ]

    @Test func theDefaultIsImmediate() async throws {
        let controller = FetchedResultsController.make(FakeStore(Self.items))
        try await controller.performFetch()
        let view = CollapsibleSections(controller)
        let probe = QueueProbe(queue: DispatchQueue(label: "unused"))
        view.delegate = probe
        let changes = view.collapse("a")
        #expect(probe.deliveries.map(\.changes) == [changes], "delivered before collapse returns")
    }

    @Test func anAsyncSchedulerDeliversInOrderOnItsQueue() async throws {
        let controller = FetchedResultsController.make(FakeStore(Self.items))
        try await controller.performFetch()
        let view = CollapsibleSections(controller)
        let queue = DispatchQueue(label: "CollapsibleSectionsSchedulerTests.callbacks")
        let probe = QueueProbe(queue: queue)
        view.delegate = probe
        view.callbackScheduler = .async(onQueue: queue)
        let (_, subscription) = view.observeChanges { changes, _ in probe.handle(changes) }
        var stream = view.changes.makeAsyncIterator()
        queue.suspend()
        let sent = [
            view.collapse("a"), controller.apply(.inserted(Item(4, section: "b", score: 4))), view.expand("a"),
            controller.apply(.deleted(3)),
        ]
        #expect(probe.deliveries.isEmpty && probe.handlerCalls.isEmpty, "callbacks wait for their queue")
        for expected in sent {
            let received = await stream.next()
            #expect(received == expected, "the changes sequence does not wait for the queue")
        }
        queue.resume()
        await withCheckedContinuation { continuation in queue.async { continuation.resume() } }
        #expect(probe.deliveries.map(\.changes) == sent)
        #expect(probe.deliveries.map(\.onQueue) == [true, true, true, true])
        #expect(probe.handlerCalls.map(\.changes) == sent, "handlers too, before the delegate")
        #expect(probe.handlerCalls.map(\.onQueue) == [true, true, true, true])
        subscription.cancel()
    }
}
