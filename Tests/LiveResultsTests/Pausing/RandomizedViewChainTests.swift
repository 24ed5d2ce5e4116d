import Foundation
@_spi(Testing) @testable import LiveResults
import Testing

/// Random events, refetches, resets, pauses, resumes and coalescing intervals: the delivered change sets,
/// applied in order to the first results, give the last ones, each step under the whole contract. Coalescing's
/// intervals end as the steps advance the controller's clock (a ``ManualClock``).
@Suite("Randomized delivery chains", .timeLimit(.minutes(5)))
struct RandomizedViewChainTests {
    @Test("random pauses and coalescing keep the chain of change sets", arguments: [UInt64(51), 52, 53])
    func randomChains(seed: UInt64) async throws {
        var workload = RandomizedModelTests.Workload(seed: seed, idSpace: 50)
        let store = FakeStore(workload.fetchResult(count: 30))
        let controller = FetchedResultsController.make(store)
        let clock = ManualClock()
        controller._clock = clock.controllerClock
        try await controller.performFetch()
        let recorder = EventHarness.ChainRecorder<Item>(initial: SnapshotModel(controller.snapshot))
        controller.delegate = recorder
        for step in 0..<600 {
            switch Int.random(in: 0..<100, using: &workload.random) {
            case 0..<8:
                controller.pause()
                #expect(controller.isPaused)
            case 8..<16:
                let frozen = SnapshotModel(controller.snapshot)
                let missed = controller.resume()
                expectContract(missed, from: frozen, to: SnapshotModel(controller.snapshot))
            case 16..<20:
                controller.coalescingInterval = [.zero, .milliseconds(1), .milliseconds(5), .seconds(10)][step % 4]
            case 20..<23:
                store.items = workload.fetchResult(count: 25)
                try await controller.performFetch()
            case 23:
                let frozen = SnapshotModel(controller.snapshot)
                let changes = controller.reset()
                expectContract(changes, from: frozen, to: SnapshotModel(sections: []))
                try await controller.performFetch()
            case 24..<27:
                clock.advance(by: .milliseconds(2))
                await Task.yield()
            default:
                controller.apply(workload.batch(knownItems: Array(controller.fetchedObjects)))
            }
        }
        controller.resume()
        controller.coalescingInterval = .zero
        clock.cancelSleepers()
        recorder.expectChain()
        #expect(recorder.deliveries.last?.after == SnapshotModel(controller.snapshot), "seed \(seed)")
    }
}
