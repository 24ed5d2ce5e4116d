import Foundation
@_spi(Testing) import LiveResults
import Testing

/// Pausing and resuming (the *PausingAndCoalescing* article), with FetchRequests' pausable-controller scenarios
/// restated for these semantics: frozen reads and nothing delivered while paused, then one catch-up change set.
@Suite("Pausing", .timeLimit(.minutes(5)), .tags(.concurrent))
struct PausingTests {
    typealias Fixture = EventHarness.Fixture

    @Test func readsAreFrozenAndObserversGetNothingWhilePaused() async throws {
        let fixture = try await Fixture.loaded()
        let frozen = fixture.model
        fixture.controller.pause()
        #expect(fixture.controller.isPaused)
        let live = fixture.controller.apply([.inserted(Item(9, section: "a", score: 15)), .deleted(1)])
        #expect(live.insertedItemIDs == [9] && live.deletedItemIDs == [1], "apply returns the live change set")
        #expect(SnapshotModel(fixture.controller.snapshot) == frozen)
        #expect(fixture.controller.fetchedObjects.map(\.id) == frozen.sections.flatMap { $0.items.map(\.id) })
        #expect(fixture.controller.object(at: ip(0, 0)).id == 1)
        #expect(fixture.controller.indexPath(for: Item(9)) == nil, "not in the frozen results")
        #expect(fixture.controller.indexPath(forID: 1) == ip(0, 0))
        #expect(fixture.recorder.deliveryCount == 0)
    }

    @Test func resumeDeliversOneChangeSetFromTheFrozenResults() async throws {
        let fixture = try await Fixture.loaded()
        let frozen = fixture.model
        fixture.controller.pause()
        fixture.controller.apply([.inserted(Item(9, section: "a", score: 15))])
        fixture.controller.apply([.updated(Item(2, section: "b", score: 20))])
        fixture.controller.apply([.updated(Item(4, section: "b", score: 5)), .deleted(3)])
        let missed = fixture.controller.resume()
        #expect(!fixture.controller.isPaused)
        expectContract(missed, from: frozen, to: fixture.model)
        #expect(fixture.recorder.changeSets == [missed], "one delivery")
        #expect(missed.insertedItemIDs == [9] && missed.deletedItemIDs == [3])
        #expect(missed.movedItemIDs == [2], "4 only shifts: the only other survivor of b was deleted")
        fixture.recorder.expectChain()
    }

    @Test func resumeWithNothingChangedDeliversNothing() async throws {
        let fixture = try await Fixture.loaded()
        fixture.controller.pause()
        fixture.controller.apply([
            .inserted(Item(9, section: "c")), .updated(Item(1, section: "a", score: 10, title: "x")),
        ])
        fixture.controller.apply([.deleted(9), .updated(Item(1, section: "a", score: 10))])
        #expect(fixture.controller.resume().isEmpty, "inserted and deleted; changed and changed back")
        #expect(fixture.recorder.deliveryCount == 0)
    }

    @Test func pausingTwiceIsOnePauseAndResumingUnpausedDoesNothing() async throws {
        let fixture = try await Fixture.loaded()
        #expect(fixture.controller.resume().isEmpty)
        fixture.controller.pause()
        fixture.controller.apply([.deleted(1)])
        fixture.controller.pause()
        fixture.controller.apply([.deleted(2)])
        #expect(fixture.controller.resume().deletedItemIDs == [1, 2], "the second pause froze nothing new")
        #expect(fixture.controller.resume().isEmpty)
        #expect(fixture.recorder.deliveryCount == 1)
    }

    @Test func resetResumes() async throws {
        let fixture = try await Fixture.loaded()
        let frozen = fixture.model
        fixture.controller.pause()
        fixture.controller.apply([.inserted(Item(9, section: "z"))])
        let changes = fixture.controller.reset()
        #expect(!fixture.controller.isPaused)
        expectContract(changes, from: frozen, to: SnapshotModel(sections: []))
        #expect(changes.deletedItems.count == frozen.itemCount, "what the frozen results showed")
        #expect(fixture.recorder.changeSets == [changes])
    }

    @Test func aRefetchWhilePausedIsCaughtUpOnResume() async throws {
        let fixture = try await Fixture.loaded()
        let frozen = fixture.model
        fixture.controller.pause()
        fixture.store.items = [Item(1, section: "a", score: 99), Item(7, section: "c", score: 1)]
        try await fixture.controller.performFetch()
        #expect(SnapshotModel(fixture.controller.snapshot) == frozen)
        let missed = fixture.controller.resume()
        expectContract(missed, from: frozen, to: fixture.model)
        #expect(fixture.model.ids == [[1], [7]])
    }

    @Test func pagesWhilePausedAreCaughtUpOnResume() async throws {
        let server = PageServer(items(1...6), pageSize: 2)
        let controller = server.controller()
        try await controller.performFetch()
        let frozen = SnapshotModel(controller.snapshot)
        controller.pause()
        try await controller.loadNextPage()
        try await controller.loadNextPage()
        #expect(SnapshotModel(controller.snapshot) == frozen)
        let missed = controller.resume()
        #expect(missed.insertedItemIDs == [3, 4, 5, 6])
        expectContract(missed, from: frozen, to: SnapshotModel(controller.snapshot))
    }

    @Test func associatedValuesThatArriveWhilePausedAreReportedOnResume() async throws {
        let fixture = try await PostFixture.loaded(PostFixture.numbered(4))
        let recorder = EventHarness.ChainRecorder<Post>(initial: SnapshotModel(fixture.controller.snapshot))
        fixture.controller.delegate = recorder
        fixture.controller.pause()
        #expect(fixture.controller.associatedValue(fixture.authors, for: fixture.post(2)) == nil)
        #expect(await fixture.backend.started(1))
        #expect(
            await EventHarness.eventually {
                fixture.controller.associatedValue(fixture.authors, for: fixture.post(2)) != nil
            })
        #expect(recorder.deliveryCount == 0)
        let missed = fixture.controller.resume()
        #expect(Set(missed.updatedItemIDs) == [1, 2, 3, 4], "the entities whose values arrived")
        recorder.expectChain(associations: true)
        await fixture.settle()
    }

    @Test func pauseAndResumeFromInsideADelegateCallback() async throws {
        let fixture = try await Fixture.loaded()
        let paused = EventHarness.Flag()
        fixture.recorder.setHook { controller, _ in
            if !paused.isSet {
                paused.set()
                controller.pause()
                controller.apply([.deleted(5)])
                _ = controller.resume()
            }
        }
        fixture.controller.apply([.deleted(1)])
        #expect(fixture.recorder.deliveryCount == 2)
        #expect(fixture.recorder.changeSets.last?.deletedItemIDs == [5])
        fixture.recorder.expectChain()
    }

    @Test func pauseAndResumeFromManyThreadsAtOnce() async throws {
        let fixture = try await Fixture.loaded(
            ScenarioFixture.sample + (10..<60).map { Item($0, section: "d", score: $0) })
        let controller = fixture.controller
        await EventHarness.onThreads(8) { thread in
            for step in 0..<200 {
                switch (thread + step) % 4 {
                case 0: controller.pause()
                case 1: controller.resume()
                case 2: controller.apply([.updated(Item(10 + (thread * 7 + step) % 50, section: "d", score: step))])
                default: _ = controller.snapshot.count
                }
            }
        }
        controller.resume()
        #expect(!controller.isPaused)
        fixture.recorder.expectChain()
        #expect(fixture.recorder.deliveries.last?.after == SnapshotModel(controller.snapshot))
    }
}
