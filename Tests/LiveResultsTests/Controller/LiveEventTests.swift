import Foundation
import LiveResults
import Testing

/// Live events applied to a loaded controller (the *LiveEvents* and *ChangeSetContract* articles). The fixture starts
/// from a: 1(10), 2(20), 3(30) | b: 4(10) | c: 5(10), 6(20), and checks every change set against the contract.
@Suite("Live events", .timeLimit(.minutes(5)), .tags(.concurrent))
struct LiveEventTests {
    typealias Fixture = ScenarioFixture

    private func loaded(isIncluded: @escaping @Sendable (Item) -> Bool = { _ in true }) async throws -> Fixture {
        try await Fixture(Fixture.sample, isIncluded: isIncluded).loaded()
    }

    // MARK: Insert, delete, update

    @Test func insertPlacesTheEntityBySortKey() async throws {
        var fixture = try await loaded()
        let changes = fixture.apply([.inserted(Item(7, section: "a", score: 15))])
        #expect(changes.insertedItems == [ip(0, 1)] && changes.insertedItemIDs == [7])
        #expect(changes.insertedSections.isEmpty && changes.movedItems.isEmpty && changes.updatedItems.isEmpty)
        #expect(fixture.ids == [[1, 7, 2, 3], [4], [5, 6]])
        #expect(fixture.deliveries == [changes])
    }

    @Test func insertIntoANewSectionInsertsTheSection() async throws {
        var fixture = try await loaded()
        let changes = fixture.apply([.inserted(Item(7, section: "bb"))])
        #expect(changes.insertedSections == [2] && changes.insertedSectionNames == ["bb"])
        #expect(changes.insertedItems == [ip(2, 0)] && changes.insertedItemIDs == [7])
        #expect(fixture.names == ["a", "b", "bb", "c"])
    }

    @Test func deleteRemovesTheEntity() async throws {
        var fixture = try await loaded()
        let changes = fixture.apply([.deleted(2)])
        #expect(changes.deletedItems == [ip(0, 1)] && changes.deletedItemIDs == [2])
        #expect(changes.deletedSections.isEmpty && changes.movedItems.isEmpty)
        #expect(fixture.ids == [[1, 3], [4], [5, 6]])
    }

    @Test func deleteOfTheLastEntityOfASectionDeletesTheSection() async throws {
        var fixture = try await loaded()
        let changes = fixture.apply([.deleted(4)])
        #expect(changes.deletedSections == [1] && changes.deletedSectionNames == ["b"])
        #expect(changes.deletedItems == [ip(1, 0)] && changes.deletedItemIDs == [4])
        #expect(fixture.names == ["a", "c"])
    }

    @Test func updateOfTheTitleOnlyIsAnUpdateInPlace() async throws {
        var fixture = try await loaded()
        let changes = fixture.apply([.updated(Item(2, section: "a", score: 20, title: "new"))])
        #expect(changes.updatedItems == [ip(0, 1)] && changes.updatedItemIDs == [2])
        #expect(changes.movedItems.isEmpty && changes.insertedItems.isEmpty && changes.deletedItems.isEmpty)
        #expect(fixture.controller.object(at: ip(0, 1)).title == "new")
    }

    @Test func updateWithEqualContentChangesNothingAndNotifiesNobody() async throws {
        var fixture = try await loaded()
        let changes = fixture.apply([.updated(Item(2, section: "a", score: 20))])
        #expect(changes.isEmpty)
        #expect(fixture.recorder.calls.isEmpty)
    }

    // MARK: Moves

    struct ScoreChange: Sendable, CustomTestStringConvertible {
        var id: Int
        var section: String
        var score: Int
        var move: ItemMove
        var order: [[Int]]
        var testDescription: String { "#\(id) to score \(score)" }
    }

    /// Each change has two minimal solutions (move the entity or its neighbour); the entity must move.
    static let scoreChanges = [
        ScoreChange(
            id: 1, section: "a", score: 25, move: ItemMove(from: ip(0, 0), to: ip(0, 1)),
            order: [[2, 1, 3], [4], [5, 6]]),
        ScoreChange(
            id: 3, section: "a", score: 15, move: ItemMove(from: ip(0, 2), to: ip(0, 1)),
            order: [[1, 3, 2], [4], [5, 6]]),
        ScoreChange(
            id: 5, section: "c", score: 25, move: ItemMove(from: ip(2, 0), to: ip(2, 1)),
            order: [[1, 2, 3], [4], [6, 5]]),
    ]

    @Test(arguments: scoreChanges)
    func scoreChangeMovesExactlyThatEntity(_ change: ScoreChange) async throws {
        var fixture = try await loaded()
        let changes = fixture.apply([.updated(Item(change.id, section: change.section, score: change.score))])
        #expect(fixture.ids == change.order)
        #expect(changes.movedItems == [change.move] && changes.movedItemIDs == [change.id])
        #expect(changes.updatedItems == [change.move.to] && changes.updatedItemIDs == [change.id])
        #expect(changes.insertedItems.isEmpty && changes.deletedItems.isEmpty)
    }

    @Test func moveIntoANewSectionInsertsTheSection() async throws {
        var fixture = try await loaded()
        let changes = fixture.apply([.updated(Item(3, section: "ab", score: 30))])
        #expect(fixture.ids == [[1, 2], [3], [4], [5, 6]])
        #expect(changes.insertedSections == [1] && changes.insertedSectionNames == ["ab"])
        #expect(changes.movedItems == [ItemMove(from: ip(0, 2), to: ip(1, 0))] && changes.movedItemIDs == [3])
        #expect(changes.updatedItems == [ip(1, 0)])
        #expect(changes.insertedItems.isEmpty && changes.deletedSections.isEmpty)
    }

    @Test func moveOutOfASectionThatEmptiesDeletesTheSection() async throws {
        var fixture = try await loaded()
        let changes = fixture.apply([.updated(Item(4, section: "c", score: 15))])
        #expect(fixture.ids == [[1, 2, 3], [5, 4, 6]])
        #expect(changes.deletedSections == [1] && changes.deletedSectionNames == ["b"])
        #expect(changes.movedItems == [ItemMove(from: ip(1, 0), to: ip(1, 1))] && changes.movedItemIDs == [4])
        #expect(changes.updatedItems == [ip(1, 1)])
        #expect(changes.deletedItems.isEmpty && changes.insertedSections.isEmpty)
    }

    /// Section b's only entity moves to a new section bb at the same index: b is deleted, bb inserted.
    @Test func moveOutOfAnEmptyingSectionIntoANewOneReplacesTheSection() async throws {
        var fixture = try await loaded()
        let changes = fixture.apply([.updated(Item(4, section: "bb", score: 10))])
        #expect(fixture.names == ["a", "bb", "c"])
        #expect(changes.deletedSections == [1] && changes.deletedSectionNames == ["b"])
        #expect(changes.insertedSections == [1] && changes.insertedSectionNames == ["bb"])
        #expect(changes.movedItems == [ItemMove(from: ip(1, 0), to: ip(1, 0))] && changes.movedItemIDs == [4])
        #expect(changes.updatedItems == [ip(1, 0)])
    }

    @Test func moveToAnotherExistingSection() async throws {
        var fixture = try await loaded()
        let changes = fixture.apply([.updated(Item(2, section: "c", score: 5))])
        #expect(fixture.ids == [[1, 3], [4], [2, 5, 6]])
        #expect(changes.movedItems == [ItemMove(from: ip(0, 1), to: ip(2, 0))] && changes.movedItemIDs == [2])
        #expect(changes.insertedSections.isEmpty && changes.deletedSections.isEmpty)
    }

    // MARK: Event rules

    @Test func insertOfAKnownIDIsAnUpdate() async throws {
        var fixture = try await loaded()
        let changes = fixture.apply([.inserted(Item(2, section: "a", score: 20, title: "again"))])
        #expect(changes.updatedItems == [ip(0, 1)] && changes.updatedItemIDs == [2])
        #expect(changes.insertedItems.isEmpty && changes.movedItems.isEmpty)
        #expect(fixture.controller.snapshot.count == 6)
    }

    @Test func updateOfAnUnknownIncludedIDIsAnInsert() async throws {
        var fixture = try await loaded()
        let changes = fixture.apply([.updated(Item(9, section: "b", score: 5))])
        #expect(changes.insertedItems == [ip(1, 0)] && changes.insertedItemIDs == [9])
        #expect(changes.updatedItems.isEmpty)
        #expect(fixture.ids == [[1, 2, 3], [9, 4], [5, 6]])
    }

    @Test func updateThatMakesTheEntityExcludedRemovesIt() async throws {
        var fixture = try await loaded(isIncluded: { !$0.title.hasPrefix("hidden") })
        let changes = fixture.apply([.updated(Item(2, section: "a", score: 20, title: "hidden"))])
        #expect(changes.deletedItems == [ip(0, 1)] && changes.deletedItemIDs == [2])
        #expect(changes.updatedItems.isEmpty)
        #expect(fixture.ids == [[1, 3], [4], [5, 6]])
    }

    @Test func deleteOfAnUnknownIDChangesNothing() async throws {
        var fixture = try await loaded()
        #expect(fixture.apply([.deleted(99)]).isEmpty)
        #expect(fixture.deliveries.isEmpty)
    }

    // MARK: Batches

    @Test func repeatedEventsInABatchCountOnce() async throws {
        var fixture = try await loaded()
        let insert = EntityEvent<Item>.inserted(Item(7, section: "a", score: 15))
        let raise = EntityEvent<Item>.updated(Item(1, section: "a", score: 25))
        let changes = fixture.apply([insert, raise, insert, raise])
        #expect(fixture.ids == [[7, 2, 1, 3], [4], [5, 6]])
        #expect(changes.insertedItems == [ip(0, 0)] && changes.insertedItemIDs == [7])
        #expect(changes.movedItems == [ItemMove(from: ip(0, 0), to: ip(0, 2))] && changes.movedItemIDs == [1])
        #expect(changes.updatedItems == [ip(0, 2)] && changes.updatedItemIDs == [1])
    }

    @Test func laterEventOfABatchWins() async throws {
        var fixture = try await loaded()
        let changes = fixture.apply([
            .updated(Item(1, section: "a", score: 25)), .updated(Item(1, section: "a", score: 35)),
        ])
        #expect(fixture.ids == [[2, 3, 1], [4], [5, 6]])
        #expect(changes.movedItems == [ItemMove(from: ip(0, 0), to: ip(0, 2))])
        #expect(fixture.controller.object(at: ip(0, 2)).score == 35)
    }

    @Test func insertThenDeleteOfANewIDInOneBatchIsNoChange() async throws {
        var fixture = try await loaded()
        let changes = fixture.apply([.inserted(Item(7, section: "z")), .deleted(7)])
        #expect(changes.isEmpty)
        #expect(fixture.deliveries.isEmpty)
        #expect(fixture.controller.indexPath(for: Item(7)) == nil)
    }

    /// Delete then insert of a known id is a new insertion: it arrives last among its ties (after 3),
    /// so it is reported as that entity moving. Insert then delete deletes it.
    @Test func deleteThenInsertOfAKnownIDReinsertsItAsANewArrival() async throws {
        var fixture = try await loaded()
        let changes = fixture.apply([.deleted(2), .inserted(Item(2, section: "a", score: 30))])
        #expect(fixture.ids == [[1, 3, 2], [4], [5, 6]])
        #expect(changes.movedItems == [ItemMove(from: ip(0, 1), to: ip(0, 2))] && changes.movedItemIDs == [2])
        #expect(changes.updatedItemIDs == [2])
        #expect(changes.insertedItems.isEmpty && changes.deletedItems.isEmpty)
    }

    @Test func insertThenDeleteOfAKnownIDDeletesIt() async throws {
        var fixture = try await loaded()
        let changes = fixture.apply([.inserted(Item(2, section: "a", score: 30)), .deleted(2)])
        #expect(fixture.ids == [[1, 3], [4], [5, 6]])
        #expect(changes.deletedItems == [ip(0, 1)] && changes.deletedItemIDs == [2])
        #expect(changes.updatedItems.isEmpty && changes.movedItems.isEmpty)
    }

    @Test func emptyBatchIsAnEmptyChangeSetAndNotifiesNobody() async throws {
        var fixture = try await loaded()
        let changes = fixture.apply([])
        #expect(changes.isEmpty)
        #expect(changes == ChangeSet())
        #expect(fixture.recorder.calls.isEmpty)
    }

    // MARK: Invalidation

    @Test func invalidatedRefetches() async throws {
        var fixture = try await loaded()
        fixture.store.items = [
            Item(1, section: "a", score: 40), Item(4, section: "b", score: 10), Item(8, section: "d", score: 1),
        ]
        let changes = fixture.controller.changes
        var iterator = changes.makeAsyncIterator()
        // Straight to the controller: the fixture would check this empty change set against a snapshot
        // that the refetch, running in its own task, may already have changed.
        #expect(fixture.controller.apply([.invalidated]).isEmpty)
        let refetched = try #require(await iterator.next())
        fixture.check(refetched)
        #expect(fixture.ids == [[1], [4], [8]])
        #expect(Set(refetched.deletedItemIDs) == [2, 3, 5, 6])
        #expect(refetched.deletedSectionNames == ["c"] && refetched.insertedSectionNames == ["d"])
        #expect(refetched.updatedItemIDs == [1])
        #expect(fixture.store.calls == 2)
    }
}
