import Foundation
import LiveResults
import LiveResultsTesting
import Testing

/// `LiveResultsTesting` as a user calls it: real change sets pass, and each broken rule is named.
@Suite struct ChangeSetContractTests {
    static let items = (0..<6).map { Item($0, section: ["a", "b"][$0 / 3], score: $0) }

    func loaded() async throws -> FetchedResultsController<Item> {
        let controller = FetchedResultsController.make(FakeStore(Self.items))
        try await controller.performFetch()
        return controller
    }

    @Test func realChangeSetsPass() async throws {
        let controller = try await loaded()
        let before = controller.snapshot
        let changes = controller.apply([
            .inserted(Item(10, section: "c")), .deleted(1), .updated(Item(4, section: "a", score: -1)),
            .updated(Item(5, section: "b", score: 5, title: "new")),
        ])
        try ChangeSetContract.verify(changes, from: before, to: controller.snapshot)
    }

    /// The rule `verify` names for `changes` between the results before and after one event.
    func violation(_ edit: (inout ChangeSet<Item>) -> Void) async throws -> ChangeSetContract.Violation.Rule? {
        let controller = try await loaded()
        let before = controller.snapshot
        var changes = controller.apply([.updated(Item(4, section: "a", score: -1)), .inserted(Item(10, section: "b"))])
        edit(&changes)
        do {
            try ChangeSetContract.verify(changes, from: before, to: controller.snapshot)
            return nil
        } catch {
            return error.rule
        }
    }

    @Test func eachBrokenRuleIsNamed() async throws {
        #expect(try await violation { _ in } == nil)
        #expect(try await violation { $0.insertedItems = $0.insertedItems.reversed() + $0.insertedItems } == .ascending)
        #expect(try await violation { $0.insertedItemIDs = [99] } == .identities)
        #expect(
            try await violation {
                $0.insertedItems = []
                $0.insertedItemIDs = []
            } == .steps)
        #expect(
            try await violation {
                // #0 did not change.
                $0.updatedItems = [IndexPath(item: 0, section: 0), IndexPath(item: 1, section: 0)]
                $0.updatedItemIDs = [4, 0]
            } == .updates)
        #expect(
            try await violation { changes in
                // Moving every survivor of section "a" as well is a valid result with too many moves.
                changes.movedItems += [
                    ItemMove(from: IndexPath(item: 0, section: 0), to: IndexPath(item: 1, section: 0))
                ]
                changes.movedItemIDs += [0]
                changes.movedItems.sort { $0.to < $1.to }
                changes.movedItemIDs = changes.movedItems.map { $0.to.item == 0 ? 4 : 0 }
            } == .minimalMoves)
    }

    /// A change set made by hand (a user's own diffing code under test) can hold any integers.
    @Test func positionsThatAreNotPositionsBreakTheSteps() async throws {
        #expect(try await violation { $0.deletedSections = [-1] } == .steps)
        #expect(try await violation { $0.insertedSections = [-2] } == .steps)
        #expect(try await violation { $0.insertedItems = [IndexPath(item: -1, section: 1)] } == .steps)
        #expect(try await violation { $0.insertedItems = [IndexPath(index: 1)] } == .steps)
        #expect(try await violation { $0.updatedItems = [IndexPath(indexes: [0, 0, 0])] } == .steps)
        #expect(
            try await violation {
                $0.movedItems = [ItemMove(from: IndexPath(item: 0, section: -1), to: IndexPath(item: 0, section: 0))]
            } == .steps)
        let misshapen = ChangeSetContract.Violation(.steps, "x", indexPaths: [IndexPath(index: 1)])
        #expect(misshapen.description == "steps: x at [1]")
    }

    @Test func aRecorderChecksTheChainOfAControllerAndOfAWindow() async throws {
        let controller = try await loaded()
        let window = controller.window(.range(offset: 1, limit: 3))
        let controllerRecorder = LiveResultsTesting.ChangeRecorder(controller)
        let windowRecorder = LiveResultsTesting.ChangeRecorder(window)
        controller.apply(.inserted(Item(10, section: "a", score: -5)))
        controller.apply(.deleted(3))
        controller.apply(.updated(Item(2, section: "a", score: 2, title: "new")))
        window.move(to: .last(2))
        #expect(controllerRecorder.changeSets.count == 3)
        #expect(controllerRecorder.snapshots.count == 4)
        #expect(windowRecorder.changeSets.count == 3)  // the delete of #3 leaves the window as it was
        try controllerRecorder.verifyChain()
        try windowRecorder.verifyChain()
        #expect(SnapshotModel(windowRecorder.snapshots.last!) == SnapshotModel(window.snapshot))
    }

    @Test func aRecorderFollowsAReplica() async throws {
        let controller = try await loaded()
        let replica = ResultsReplica<Item>()
        let recorder = LiveResultsTesting.ChangeRecorder(replica)
        let updates = controller.updates().makeAsyncIterator()
        try replica.apply(try #require(await updates.next()))
        controller.apply(.inserted(Item(10, section: "c")))
        controller.apply([.deleted(0), .updated(Item(5, section: "a", score: -1))])
        for _ in 0..<2 { try replica.apply(try #require(await updates.next())) }
        #expect(recorder.changeSets.count == 3 && recorder.snapshots.count == 4)
        try recorder.verifyChain()
        #expect(SnapshotModel(recorder.snapshots.last!) == SnapshotModel(controller.snapshot))
        var changes = replica.changes.makeAsyncIterator()
        controller.apply(.deleted(10))
        try replica.apply(try #require(await updates.next()))
        #expect(await changes.next()?.deletedItemIDs == [10])
    }

    @Test func aRecorderFollowsACollapsibleView() async throws {
        let controller = try await loaded()
        let view = CollapsibleSections(
            controller, limit: { $0 == "b" ? SectionLimit(maximum: 2, whenExceeding: 1) : nil })
        let recorder = LiveResultsTesting.ChangeRecorder(view)
        view.collapse("a")
        controller.apply(.inserted(Item(10, section: "a", score: -1)))
        view.collapse("b")
        controller.apply([.deleted(3), .updated(Item(4, section: "b", score: 4, title: "new"))])
        view.expand("a")
        #expect(recorder.changeSets.count == 5)  // the insert into collapsed "a" updates its header (one more hidden)
        try recorder.verifyChain()
        let display = recorder.snapshots.last!
        #expect(display.sections.map(\.name) == ["a", "b"])
        #expect(display.sections.map(\.numberOfObjects) == [4, 2])
        #expect(SnapshotModel(display) == SnapshotModel(view.snapshot))
        #expect(display.indexPath(forID: 5) == IndexPath(item: 1, section: 1) && display.count == 6)
    }
}
