import Dispatch
import Foundation
import LiveResults
import Testing

/// `waitForDeliveredEvents()`: a batch that a source delivered while another thread applied one waits in the
/// controller's inbox, and the wait ends only once it is applied.
@Suite("Controller: waiting for delivered events", .tags(.concurrent), .timeLimit(.minutes(1)))
struct DeliveredEventsTests {
    @Test("a batch queued behind one being applied is shown when the wait returns")
    func queuedBatchIsApplied() async throws {
        let bus = EventBus<Item>()
        let controller = FetchedResultsController(
            definition: FetchDefinition(request: { [Item(1)] }), sortDescriptors: [SortDescriptor(\Item.id)])
        try await controller.performFetch()
        let subscription = controller.observe(bus)
        // The first batch's observer holds the thread that applies it until the test lets it go.
        let applying = DispatchSemaphore(value: 0)
        let release = DispatchSemaphore(value: 0)
        let (_, observation) = controller.observeChanges { _, snapshot in
            guard snapshot.fetchedObjects.count == 2 else { return }
            applying.signal()
            release.wait()
        }
        let drainer = Thread { bus.publish(.inserted(Item(2))) }
        drainer.start()
        #expect(await waitFor(applying), "the first batch is being applied")
        bus.publish(.inserted(Item(3)))  // queued: the other thread drains
        #expect(controller.fetchedObjects.map(\.id) == [1, 2], "queued, not applied yet")
        let waiter = Task { () -> [Int] in
            await controller.waitForDeliveredEvents()
            return controller.fetchedObjects.map(\.id)
        }
        // A sleep: gives the waiter time to ask while the batch still waits (were it to ask later, it would pass
        // at once, and the test would not tell); the expectation below holds either way.
        try await Task.sleep(for: .milliseconds(100))
        release.signal()
        #expect(await waiter.value == [1, 2, 3])
        await controller.waitForDeliveredEvents()  // idle: returns at once
        subscription.cancel()
        observation.cancel()
    }

    /// Waits, on another thread, for `semaphore`, up to 10 seconds.
    private func waitFor(_ semaphore: DispatchSemaphore) async -> Bool {
        await withCheckedContinuation { continuation in
            DispatchQueue.global().async {
                continuation.resume(returning: semaphore.wait(timeout: .now() + 10) == .success)
            }
        }
    }
}
