import Foundation
import Testing

@testable import LiveResults

/// Windows whose entities change without being listed: shifts by changes before them, entities that leave and
/// come back, and moves over unchanged results, each checked for its exact change set and against the contract.
@Suite("Window shifts", .timeLimit(.minutes(5)))
struct WindowShiftTests {
    func loaded(_ items: [Item]) async throws -> FetchedResultsController<Item> {
        let controller = FetchedResultsController.make(FakeStore(items))
        try await controller.performFetch()
        return controller
    }

    /// Checks what `follower`'s window delivered since the last check against the contract and the controller.
    func check(_ follower: WindowChainTests.Follower, _ controller: FetchedResultsController<Item>, step: String) {
        let observed = SnapshotModel(controller._observedResults().snapshot)
        follower.check(against: WindowChainTests.slice(observed, follower.window.range), step: step)
    }

    /// A recorder of the window's change sets, as its delegate, and a follower that checks them.
    func observe(_ window: LiveWindow<Item>) -> (ChangeRecorder<Item>, WindowChainTests.Follower) {
        let recorder = ChangeRecorder<Item>()
        window.delegate = recorder
        return (recorder, WindowChainTests.Follower(window))
    }

    /// Expects `changes` to enter one entity and leave another, at items of the window's first section.
    func expectSwap(
        _ changes: ChangeSet<Item>, entering entered: (id: Int, item: Int), leaving left: (id: Int, item: Int),
        sourceLocation: SourceLocation = #_sourceLocation
    ) {
        #expect(changes.insertedItemIDs == [entered.id], sourceLocation: sourceLocation)
        #expect(changes.insertedItems == [IndexPath(item: entered.item, section: 0)], sourceLocation: sourceLocation)
        #expect(changes.deletedItemIDs == [left.id], sourceLocation: sourceLocation)
        #expect(changes.deletedItems == [IndexPath(item: left.item, section: 0)], sourceLocation: sourceLocation)
        #expect(changes.movedItems.isEmpty && changes.updatedItems.isEmpty, sourceLocation: sourceLocation)
        #expect(changes.insertedSections.isEmpty && changes.deletedSections.isEmpty, sourceLocation: sourceLocation)
    }

    @Test("one insert before a window of 1,000 leaves one entity at its end and enters one at its start")
    func insertBeforeALargeWindow() async throws {
        let controller = try await loaded((0..<3_000).map { Item($0, section: "a", score: $0) })
        let window = controller.window(.range(offset: 1_000, limit: 1_000))
        let (recorder, follower) = observe(window)
        controller.apply(.inserted(Item(5_000, section: "a", score: -1)))
        check(follower, controller, step: "insert")
        controller.apply(.deleted(5_000))
        check(follower, controller, step: "delete")
        let changes = recorder.changeSets
        try #require(changes.count == 2)
        expectSwap(changes[0], entering: (999, 0), leaving: (1_999, 999))
        expectSwap(changes[1], entering: (1_999, 999), leaving: (999, 0))
    }

    @Test("a window spanning many sections, shifted across their edges, gains and loses sections at its edges")
    func shiftAcrossSections() async throws {
        // 50 sections of 4; the window holds sections 2...26 whole.
        let items = (0..<200).map { Item($0, section: "s" + String($0 / 4 + 100), score: $0) }
        let controller = try await loaded(items)
        let window = controller.window(.range(offset: 8, limit: 100))
        let (recorder, follower) = observe(window)
        controller.apply(.inserted(Item(1_000, section: "s100", score: -1)))
        check(follower, controller, step: "insert")
        let changes = try #require(recorder.changeSets.first)
        #expect(changes.insertedSections == [0] && changes.insertedSectionNames == ["s101"])
        #expect(changes.insertedItemIDs == [7] && changes.insertedItems == [IndexPath(item: 0, section: 0)])
        #expect(changes.deletedItemIDs == [107] && changes.deletedItems == [IndexPath(item: 3, section: 24)])
        #expect(changes.deletedSections.isEmpty && changes.movedItems.isEmpty)
        // Deletes of whole sections before and inside it, an entity moved across it, and a batch of all of them.
        controller.apply([.deleted(0), .deleted(1), .deleted(2), .deleted(3), .deleted(1_000)])
        check(follower, controller, step: "delete a section before")
        controller.apply([.deleted(40), .deleted(41), .deleted(42), .deleted(43)])
        check(follower, controller, step: "delete a section inside")
        controller.apply(.updated(Item(60, section: "s140", score: 160)))
        check(follower, controller, step: "move across sections inside")
        controller.apply([
            .inserted(Item(1_001, section: "s099", score: 0)), .updated(Item(20, section: "s130", score: 121)),
            .deleted(30), .updated(Item(190, section: "s105", score: 21)), .inserted(Item(1_002, section: "s115")),
        ])
        check(follower, controller, step: "batch")
        #expect(recorder.changeSets.count == 5)
    }

    @Test("an entity moved from inside the window to outside and back leaves it and enters it; one moved inside moves")
    func moveOutAndBack() async throws {
        let controller = try await loaded((0..<100).map { Item($0, section: "a", score: $0 * 10) })
        let window = controller.window(.range(offset: 10, limit: 20))
        let (recorder, follower) = observe(window)
        controller.apply(.updated(Item(15, section: "a", score: 2_000)))
        check(follower, controller, step: "out after")
        controller.apply(.updated(Item(15, section: "a", score: 150)))
        check(follower, controller, step: "back")
        controller.apply(.updated(Item(15, section: "a", score: -5)))
        check(follower, controller, step: "out before")
        controller.apply(.updated(Item(15, section: "a", score: 150)))
        check(follower, controller, step: "back")
        controller.apply(.updated(Item(12, section: "a", score: 255)))
        check(follower, controller, step: "inside")
        let changes = recorder.changeSets
        try #require(changes.count == 5)
        expectSwap(changes[0], entering: (30, 19), leaving: (15, 5))
        expectSwap(changes[1], entering: (15, 5), leaving: (30, 19))
        expectSwap(changes[2], entering: (9, 0), leaving: (15, 5))
        expectSwap(changes[3], entering: (15, 5), leaving: (9, 0))
        // The entity whose own event moved it is the one moved, not the 13 it passed.
        #expect(changes[4].movedItemIDs == [12] && changes[4].insertedItems.isEmpty && changes[4].deletedItems.isEmpty)
        #expect(
            changes[4].movedItems == [
                ItemMove(from: IndexPath(item: 2, section: 0), to: IndexPath(item: 15, section: 0))
            ])
        #expect(changes[4].updatedItemIDs == [12])
    }

    @Test("move(to:) by a partial overlap enters what it reaches and leaves what it passes, with no moves")
    func moveByPartialOverlap() async throws {
        let controller = try await loaded(
            (0..<50).map { Item($0, section: ["a", "b", "c", "d", "e"][$0 / 10], score: $0) })
        let window = controller.window(.range(offset: 5, limit: 20))
        let follower = WindowChainTests.Follower(window)
        let changes = window.move(to: .range(offset: 15, limit: 20))
        check(follower, controller, step: "forward")
        #expect(changes.deletedItemIDs == Array(5..<15) && changes.insertedItemIDs == Array(25..<35))
        #expect(changes.deletedSections == [0] && changes.deletedSectionNames == ["a"])
        #expect(changes.insertedSections == [2] && changes.insertedSectionNames == ["d"])
        #expect(
            changes.deletedItems
                == (0..<5).map { IndexPath(item: $0, section: 0) } + (0..<5).map { IndexPath(item: $0, section: 1) })
        #expect(
            changes.insertedItems
                == (5..<10).map { IndexPath(item: $0, section: 1) } + (0..<5).map { IndexPath(item: $0, section: 2) })
        #expect(changes.movedItems.isEmpty && changes.updatedItems.isEmpty)
        for range in [
            WindowRange.range(offset: 12, limit: 20), .range(offset: 13, limit: 3), .first(30), .last(7), .first(0),
        ] {
            window.move(to: range)
            check(follower, controller, step: "\(range)")
        }
    }
}
