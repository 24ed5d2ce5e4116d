import Foundation
@_spi(Testing) import LiveResults
import Testing

/// Coalesced delivery (the *PausingAndCoalescing* article): every change applies at once, observers get at most one
/// change set per interval, composed under the whole contract.
@Suite("Coalescing", .timeLimit(.minutes(5)), .tags(.concurrent))
struct CoalescingTests {
    typealias Fixture = EventHarness.Fixture

    @Test func aBurstIsDeliveredAsOneChangeSetAtTheEndOfTheInterval() async throws {
        let fixture = try await Fixture.loaded()
        let controller = fixture.controller
        controller.coalescingInterval = .milliseconds(200)
        let first = controller.apply([.deleted(1)])
        #expect(fixture.recorder.changeSets == [first], "a change after a quiet interval goes at once")
        for id in 10..<40 { controller.apply([.inserted(Item(id, section: "c", score: id))]) }
        controller.apply([.inserted(Item(99, section: "z")), .deleted(99), .updated(Item(2, section: "a", score: 20))])
        #expect(fixture.controller.snapshot.count == 34, "reads are current")
        #expect(fixture.recorder.deliveryCount == 1, "the rest waits for the interval")
        try #require(await EventHarness.eventually(timeout: .seconds(45)) { fixture.recorder.deliveryCount == 2 })
        let burst = fixture.recorder.changeSets[1]
        #expect(burst.insertedItemIDs.count == 30)
        #expect(!burst.insertedItemIDs.contains(99) && burst.insertedSectionNames == ["c"], "99 came and went")
        #expect(burst.updatedItems.isEmpty, "2 was updated to what it was")
        fixture.recorder.expectChain()
    }

    @Test func theDeliveredChangeSetsChainFromTheFirstToTheLastResults() async throws {
        let fixture = try await Fixture.loaded()
        let controller = fixture.controller
        controller.coalescingInterval = .milliseconds(20)
        var workload = RandomizedModelTests.Workload(seed: 7, idSpace: 40)
        let changes = controller.changes
        let clock = ContinuousClock()
        let start = clock.now
        for step in 0..<300 {
            controller.apply(workload.batch(knownItems: Array(controller.fetchedObjects)))
            if step % 50 == 0 { try await Task.sleep(for: .milliseconds(25)) }
        }
        let elapsed = start.duration(to: clock.now)
        controller.coalescingInterval = .zero
        // At most one delivery per interval (and one at once after a quiet one): however slow the machine
        // (ThreadSanitizer, other builds), coalescing bounds the deliveries by the time taken, not by the 300
        // batches.
        let bound = Int(elapsed / .milliseconds(20)) + 8
        #expect(
            fixture.recorder.deliveryCount <= min(bound, 299),
            "coalesced: \(fixture.recorder.deliveryCount) deliveries in \(elapsed)")
        fixture.recorder.expectChain()
        #expect(
            fixture.recorder.deliveries.last?.after == SnapshotModel(controller.snapshot), "zero delivered the rest")
        let streamed = await EventHarness.collect(fixture.recorder.deliveryCount, from: changes)
        #expect(streamed == fixture.recorder.changeSets, "changes gets the same change sets")
    }

    @Test func aNegativeIntervalCountsAsZero() async throws {
        let fixture = try await Fixture.loaded()
        fixture.controller.coalescingInterval = .milliseconds(-5)
        #expect(fixture.controller.coalescingInterval == .zero)
        fixture.controller.apply([.deleted(1)])
        fixture.controller.apply([.deleted(2)])
        #expect(fixture.recorder.deliveryCount == 2)
    }

    @Test func changingTheIntervalWhileChangesAreHeld() async throws {
        let fixture = try await Fixture.loaded()
        let controller = fixture.controller
        controller.coalescingInterval = .seconds(60)
        controller.apply([.deleted(1)])
        controller.apply([.deleted(2)])
        controller.apply([.deleted(3)])
        #expect(fixture.recorder.deliveryCount == 1)
        controller.coalescingInterval = .milliseconds(10)
        try #require(
            await EventHarness.eventually(timeout: .seconds(45)) { fixture.recorder.deliveryCount == 2 },
            "the shorter interval applies")
        controller.apply([.deleted(4)])
        controller.apply([.deleted(5)])
        controller.coalescingInterval = .zero
        #expect(fixture.recorder.deliveryCount >= 3)
        #expect(fixture.recorder.deliveries.last?.after == SnapshotModel(controller.snapshot))
        fixture.recorder.expectChain()
    }

    @Test func aNewSubscriberStartsFromTheCurrentResults() async throws {
        let fixture = try await Fixture.loaded()
        let controller = fixture.controller
        controller.coalescingInterval = .seconds(60)
        controller.apply([.deleted(1)])
        controller.apply([.deleted(2)])
        let start = SnapshotModel(controller.snapshot)
        let changes = controller.changes
        #expect(fixture.recorder.deliveryCount == 2, "the held change went to the earlier observers")
        controller.coalescingInterval = .zero
        controller.apply([.deleted(3)])
        let received = await EventHarness.collect(1, from: changes)
        expectContract(try #require(received.first), from: start, to: SnapshotModel(controller.snapshot))
        fixture.recorder.expectChain()
    }

    @Test func pausingDeliversWhatCoalescingHeldAndResumeCatchesUp() async throws {
        let fixture = try await Fixture.loaded()
        let controller = fixture.controller
        controller.coalescingInterval = .seconds(60)
        controller.apply([.deleted(1)])
        controller.apply([.deleted(2)])
        controller.pause()
        #expect(
            fixture.recorder.deliveries.last?.after == SnapshotModel(controller.snapshot),
            "observers have the frozen results")
        controller.apply([.deleted(3)])
        let missed = controller.resume()
        #expect(missed.deletedItemIDs == [3])
        #expect(fixture.recorder.changeSets.last == missed)
        fixture.recorder.expectChain()
    }

    @Test func aControllerReleasedWithADeliveryPendingIsFreed() async throws {
        weak var released: FetchedResultsController<Item>?
        let recorder = EventHarness.ChainRecorder<Item>(initial: SnapshotModel(sections: []))
        do {
            let controller = FetchedResultsController.make(FakeStore(ScenarioFixture.sample))
            released = controller
            try await controller.performFetch()
            controller.delegate = recorder
            controller.coalescingInterval = .milliseconds(30)
            controller.apply([.deleted(1)])
            controller.apply([.deleted(2)])
        }
        #expect(released == nil, "the scheduled delivery does not keep the controller")
        try await Task.sleep(for: .milliseconds(60))
        #expect(recorder.deliveryCount == 1, "nothing delivered after the release")
    }
}
