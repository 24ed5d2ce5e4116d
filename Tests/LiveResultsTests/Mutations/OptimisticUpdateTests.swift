import Foundation
import LiveResults
import Testing

/// Optimistic updates (the *LifeOfAQuery* article): applied at once, committed, or rolled back to the versions
/// before them unless a later event changed them; every change set checked against the contract.
@Suite("Optimistic updates", .timeLimit(.minutes(5)), .tags(.concurrent))
struct OptimisticUpdateTests {
    typealias Fixture = ScenarioFixture

    /// Ties of score in one section, so that a restored entity must also get its insertion place back.
    static let tied = [Item(1, score: 5), Item(2, score: 5), Item(3, score: 5), Item(4, score: 9)]

    @Test func aRollBackRestoresWhatWasShownBefore() async throws {
        var fixture = try await Fixture(Self.tied, sectioned: false).loaded()
        let before = fixture.model
        let update = fixture.controller.applyOptimistically([
            .updated(Item(1, score: 20, title: "edited")), .deleted(2), .inserted(Item(9, score: 0)),
        ])
        fixture.check(update.changes)
        #expect(fixture.ids == [[9, 3, 4, 1]])
        let rolledBack = update.rollBack()
        fixture.check(rolledBack)
        #expect(fixture.model == before, "1 and 2 back in their places among the ties, 9 gone")
        #expect(rolledBack.deletedItemIDs == [9] && rolledBack.insertedItemIDs == [2])
        #expect(rolledBack.updatedItemIDs == [1])
        #expect(fixture.deliveries.last == rolledBack, "delivered")
        #expect(update.isSettled)
    }

    @Test func aLaterEventWins() async throws {
        var fixture = try await Fixture(Self.tied, sectioned: false).loaded()
        let update = fixture.controller.applyOptimistically([.updated(Item(1, score: 20)), .updated(Item(3, score: 1))])
        fixture.check(update.changes)
        fixture.apply([.updated(Item(1, score: 30, title: "from the server"))])
        let rolledBack = update.rollBack()
        fixture.check(rolledBack)
        #expect(fixture.controller.object(withID: 1) == Item(1, score: 30, title: "from the server"))
        #expect(fixture.controller.object(withID: 3) == Item(3, score: 5), "3 is restored")
        #expect(fixture.ids == [[2, 3, 4, 1]])
    }

    @Test func aCommitKeepsTheEventsAndSettlesTheUpdate() async throws {
        var fixture = try await Fixture(Self.tied, sectioned: false).loaded()
        let update = fixture.controller.applyOptimistically([.deleted(4)])
        fixture.check(update.changes)
        update.commit()
        #expect(update.isSettled)
        #expect(update.rollBack().isEmpty)
        #expect(fixture.ids == [[1, 2, 3]])
    }

    @Test func aSecondRollBackDoesNothing() async throws {
        var fixture = try await Fixture(Self.tied, sectioned: false).loaded()
        let update = fixture.controller.applyOptimistically([.deleted(4)])
        fixture.check(update.changes)
        fixture.check(update.rollBack())
        #expect(update.rollBack().isEmpty)
        #expect(fixture.ids == [[1, 2, 3, 4]])
    }

    @Test func aRollBackAfterAResetOrARefetchDoesNothing() async throws {
        var fixture = try await Fixture(Self.tied, sectioned: false).loaded()
        let reset = fixture.controller.applyOptimistically([.deleted(4)])
        fixture.check(reset.changes)
        fixture.reset()
        #expect(reset.rollBack().isEmpty)
        try await fixture.fetch()
        let refetched = fixture.controller.applyOptimistically([.deleted(4)])
        fixture.check(refetched.changes)
        try await fixture.fetch()
        #expect(refetched.rollBack().isEmpty, "the refetch's results come from the source")
        #expect(fixture.ids == [[1, 2, 3, 4]])
    }

    @Test func beforeTheFirstFetchThereIsNothingToRollBack() async throws {
        let fixture = Fixture(Self.tied, sectioned: false)
        let update = fixture.controller.applyOptimistically([.deleted(4)])
        #expect(update.changes.isEmpty)
        #expect(update.rollBack().isEmpty)
    }

    @Test func anUpdateDoesNotKeepTheControllerAlive() async throws {
        weak var released: FetchedResultsController<Item>?
        let update: OptimisticUpdate<Item>
        do {
            let controller = FetchedResultsController.make(FakeStore(Self.tied))
            released = controller
            try await controller.performFetch()
            update = controller.applyOptimistically([.deleted(1)])
        }
        #expect(released == nil)
        #expect(update.rollBack().isEmpty)
    }
}
