import Foundation
@_spi(Testing) @testable import LiveResults
import Testing

/// Coalesced delivery (the *PausingAndCoalescing* article): every change applies at once, observers get at most one
/// change set per interval, composed under the whole contract. The tests that wait for an interval's end drive
/// the controller's clock (a ``ManualClock``); those with an interval of a minute never reach it.
@Suite("Coalescing", .timeLimit(.minutes(5)), .tags(.concurrent))
struct CoalescingTests {
    typealias Fixture = EventHarness.Fixture

    @Test func aBurstIsDeliveredAsOneChangeSetAtTheEndOfTheInterval() async throws {
        let fixture = try await Fixture.loaded()
        let controller = fixture.controller
        let clock = ManualClock()
        controller._clock = clock.controllerClock
        controller.coalescingInterval = .milliseconds(200)
        let first = controller.apply([.deleted(1)])
        #expect(fixture.recorder.changeSets == [first], "a change after a quiet interval goes at once")
        for id in 10..<40 { controller.apply([.inserted(Item(id, section: "c", score: id))]) }
        controller.apply([.inserted(Item(99, section: "z")), .deleted(99), .updated(Item(2, section: "a", score: 20))])
        #expect(fixture.controller.snapshot.count == 34, "reads are current")
        try #require(
            await EventHarness.eventually(timeout: .seconds(45)) { clock.sleeping == 1 },
            "one wake-up is scheduled for the burst")
        #expect(fixture.recorder.deliveryCount == 1, "the rest waits for the interval")
        clock.advanceToNextDeadline()
        #expect(clock.now.offset == .milliseconds(200))
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
        let clock = ManualClock()
        controller._clock = clock.controllerClock
        controller.coalescingInterval = .milliseconds(20)
        var workload = RandomizedModelTests.Workload(seed: 7, idSpace: 40)
        let changes = controller.changes
        for step in 0..<300 {
            controller.apply(workload.batch(knownItems: Array(controller.fetchedObjects)))
            // Every 50 batches, the interval ends: the next batch goes at once, and the scheduled wake-up
            // delivers (each possibly before the other).
            if step % 50 == 0 { clock.advance(by: .milliseconds(25)) }
        }
        controller.coalescingInterval = .zero
        // At most one delivery per interval and one at once after it: two for each of the 6 intervals that
        // ended, the first batch's, and zero's, however the wake-ups and the batches interleave.
        #expect(
            fixture.recorder.deliveryCount <= 14,
            "coalesced: \(fixture.recorder.deliveryCount) deliveries for 300 batches")
        fixture.recorder.expectChain()
        #expect(
            fixture.recorder.deliveries.last?.after == SnapshotModel(controller.snapshot), "zero delivered the rest")
        let streamed = await EventHarness.collect(fixture.recorder.deliveryCount, from: changes)
        #expect(streamed == fixture.recorder.changeSets, "changes gets the same change sets")
        clock.cancelSleepers()
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
        let clock = ManualClock()
        controller._clock = clock.controllerClock
        controller.coalescingInterval = .seconds(60)
        controller.apply([.deleted(1)])
        controller.apply([.deleted(2)])
        controller.apply([.deleted(3)])
        #expect(fixture.recorder.deliveryCount == 1)
        controller.coalescingInterval = .milliseconds(10)
        try #require(
            await EventHarness.eventually(timeout: .seconds(45)) { clock.sleeping == 2 },
            "a wake-up at the end of each interval")
        #expect(fixture.recorder.deliveryCount == 1, "the shorter interval has not ended either")
        clock.advanceToNextDeadline()
        #expect(clock.now.offset == .milliseconds(10))
        try #require(
            await EventHarness.eventually(timeout: .seconds(45)) { fixture.recorder.deliveryCount == 2 },
            "the shorter interval applies")
        controller.apply([.deleted(4)])
        controller.apply([.deleted(5)])
        controller.coalescingInterval = .zero
        #expect(fixture.recorder.deliveryCount == 3, "zero delivers what was held")
        #expect(fixture.recorder.deliveries.last?.after == SnapshotModel(controller.snapshot))
        fixture.recorder.expectChain()
        clock.cancelSleepers()
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

    /// A controller released while a delivery is scheduled is freed, and its wake-up delivers nothing; the
    /// same wake-up of a controller kept alive delivers, so that the clock is seen to reach it.
    @Test(arguments: [true, false])
    func aControllerReleasedWithADeliveryPendingIsFreed(released: Bool) async throws {
        weak var weakController: FetchedResultsController<Item>?
        var kept: FetchedResultsController<Item>?
        let recorder = EventHarness.ChainRecorder<Item>(initial: SnapshotModel(sections: []))
        let clock = ManualClock()
        do {
            let controller = FetchedResultsController.make(FakeStore(ScenarioFixture.sample))
            weakController = controller
            controller._clock = clock.controllerClock
            try await controller.performFetch()
            controller.delegate = recorder
            controller.coalescingInterval = .milliseconds(30)
            controller.apply([.deleted(1)])
            controller.apply([.deleted(2)])
            if !released { kept = controller }
        }
        #expect((weakController == nil) == released, "the scheduled delivery does not keep the controller")
        try #require(
            await EventHarness.eventually(timeout: .seconds(45)) { clock.sleeping == 1 }, "the wake-up is scheduled")
        clock.advanceToNextDeadline()
        try #require(await EventHarness.eventually(timeout: .seconds(45)) { clock.wakes == 1 }, "and wakes")
        if released {
            #expect(recorder.deliveryCount == 1, "nothing delivered after the release")
        } else {
            #expect(
                await EventHarness.eventually(timeout: .seconds(45)) { recorder.deliveryCount == 2 },
                "the wake-up delivers what was held")
        }
        withExtendedLifetime(kept) {}
    }
}
