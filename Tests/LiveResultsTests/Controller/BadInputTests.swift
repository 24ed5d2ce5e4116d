import Foundation
import LiveResults
import Synchronization
import Testing

/// Bad input must never corrupt a controller (the *LiveEvents* and *ChangeSetContract* articles): unknown ids,
/// duplicates, events at the wrong time, failing and sloppy requests, malformed events. Every change set is checked
/// against the contract and every resulting state against the reference model.
@Suite("Bad input", .timeLimit(.minutes(5)))
struct BadInputTests {
    typealias Fixture = EventHarness.Fixture

    // MARK: Unknown and known ids

    @Test func updatedOfAnUnknownIncludedIDInsertsIt() async throws {
        var fixture = try await Fixture.loaded()
        let changes = fixture.apply([.updated(Item(9, section: "a", score: 15))])
        #expect(changes.insertedItemIDs == [9])
        #expect(changes.insertedItems == [IndexPath(item: 1, section: 0)])
        #expect(changes.updatedItems.isEmpty && changes.deletedItems.isEmpty && changes.movedItems.isEmpty)
    }

    @Test func updatedOfAnUnknownExcludedIDChangesNothing() async throws {
        var fixture = try await Fixture.loaded()
        let before = fixture.model
        let changes = fixture.apply([.updated(Item(9, section: "a", score: -1))])
        #expect(changes.isEmpty)
        #expect(fixture.model == before)
    }

    @Test func deletedOfAnUnknownIDChangesNothing() async throws {
        var fixture = try await Fixture.loaded()
        let before = fixture.model
        let changes = fixture.apply([.deleted(999)])
        #expect(changes.isEmpty)
        #expect(fixture.model == before)
        #expect(fixture.controller.statistics == ControllerStatistics())
    }

    @Test func insertedOfAKnownIDIsTreatedAsAnUpdate() async throws {
        var fixture = try await Fixture.loaded()
        let changes = fixture.apply([.inserted(Item(2, section: "a", score: 20, title: "renamed"))])
        #expect(changes.updatedItemIDs == [2])
        #expect(changes.insertedItems.isEmpty && changes.deletedItems.isEmpty && changes.movedItems.isEmpty)
        #expect(fixture.controller.snapshot.object(withID: 2)?.title == "renamed")
    }

    /// Item 1 takes the score of item 2: as an update it keeps its insertion position (before 2); a fresh
    /// insert would have put it after 2 and 5.
    @Test func insertedOfAKnownIDKeepsItsInsertionPosition() async throws {
        var fixture = try await Fixture.loaded()
        let changes = fixture.apply([.inserted(Item(1, section: "a", score: 20, title: "again"))])
        #expect(fixture.model.ids.first == [1, 2, 5])
        #expect(changes.updatedItemIDs == [1])
        #expect(changes.movedItems.isEmpty && changes.insertedItems.isEmpty)
    }

    static let noOpEvents: [EntityEvent<Item>] = [
        .deleted(999),
        .updated(Item(999, section: "a", score: -5)),
        .inserted(Item(999, section: "z", score: -5)),
        .updated(Item(2, section: "a", score: 20)),
        .inserted(Item(3, section: "b", score: 10)),
    ]

    @Test(arguments: noOpEvents)
    func noOpBadEventLeavesEverythingUnchanged(_ event: EntityEvent<Item>) async throws {
        var fixture = try await Fixture.loaded()
        let before = fixture.model
        let changes = fixture.apply([event])
        #expect(changes.isEmpty)
        #expect(fixture.model == before)
        #expect(fixture.recorder.deliveryCount == 0, "empty change sets are not delivered")
        #expect(fixture.controller.statistics == ControllerStatistics())
    }

    // MARK: Duplicates in one batch

    @Test func sameUpdateTwiceInOneBatchCountsOnce() async throws {
        var fixture = try await Fixture.loaded()
        let raised = Item(1, section: "a", score: 25, title: "raised")
        let changes = fixture.apply([.updated(raised), .updated(raised)])
        #expect(changes.movedItemIDs == [1])
        #expect(changes.updatedItemIDs == [1])
        #expect(fixture.model.ids.first == [2, 5, 1])
    }

    @Test func sameDeleteTwiceInOneBatchCountsOnce() async throws {
        var fixture = try await Fixture.loaded()
        let changes = fixture.apply([.deleted(3), .deleted(3)])
        #expect(changes.deletedItemIDs == [3])
        #expect(changes.deletedItems == [IndexPath(item: 0, section: 1)])
        #expect(fixture.controller.snapshot.count == Fixture.seed.count - 1)
    }

    @Test func sameInsertTwiceInOneBatchInsertsOnce() async throws {
        var fixture = try await Fixture.loaded()
        let new = Item(9, section: "c", score: 1)
        let changes = fixture.apply([.inserted(new), .inserted(new)])
        #expect(changes.insertedItemIDs == [9])
        #expect(changes.insertedSectionNames == ["c"])
        #expect(fixture.controller.snapshot.count == Fixture.seed.count + 1)
    }

    /// The second insert of a new id in one batch is an update of the first: one insert, latest content.
    @Test func twoInsertsOfOneNewIDInOneBatchInsertTheLatestContent() async throws {
        var fixture = try await Fixture.loaded()
        let changes = fixture.apply([
            .inserted(Item(9, section: "a", score: 5, title: "first")),
            .inserted(Item(9, section: "a", score: 50, title: "second")),
        ])
        #expect(changes.insertedItemIDs == [9])
        #expect(changes.updatedItems.isEmpty)
        #expect(fixture.controller.snapshot.object(withID: 9)?.title == "second")
    }

    // MARK: Insert and delete of one id in one batch

    @Test func insertThenDeleteOfANewIDInOneBatchChangesNothing() async throws {
        var fixture = try await Fixture.loaded()
        let before = fixture.model
        let changes = fixture.apply([.inserted(Item(9, section: "c", score: 1)), .deleted(9)])
        #expect(changes.isEmpty)
        #expect(fixture.model == before)
    }

    @Test func updateThenDeleteOfAKnownIDInOneBatchDeletesIt() async throws {
        var fixture = try await Fixture.loaded()
        let changes = fixture.apply([.inserted(Item(2, section: "a", score: 1, title: "x")), .deleted(2)])
        #expect(changes.deletedItemIDs == [2])
        #expect(changes.updatedItems.isEmpty && changes.movedItems.isEmpty && changes.insertedItems.isEmpty)
    }

    /// Deleting then inserting a known id makes it a new arrival: it goes after the entities it ties with.
    @Test func deleteThenInsertOfAKnownIDInOneBatchReinsertsItAsANewArrival() async throws {
        var fixture = try await Fixture.loaded()
        let changes = fixture.apply([.deleted(2), .inserted(Item(2, section: "a", score: 20, title: "back"))])
        #expect(fixture.model.ids.first == [1, 5, 2])
        #expect(changes.deletedItems.isEmpty && changes.insertedItems.isEmpty, "a survivor is not deleted and inserted")
    }

    @Test func deleteThenReinsertOfAnUnchangedLastEntityChangesNothing() async throws {
        var fixture = try await Fixture.loaded()
        let changes = fixture.apply([.deleted(4), .inserted(Item(4, section: "b", score: 30))])
        #expect(changes.isEmpty)
    }

    // MARK: Events at the wrong time

    @Test func eventsBeforeTheFirstFetchAreIgnoredAndReported() async throws {
        var fixture = Fixture()
        let controller = fixture.controller
        #expect(controller.apply([.inserted(Item(9, section: "a", score: 1)), .deleted(1)]).isEmpty)
        #expect(controller.apply(.updated(Item(2, section: "a", score: 99))).isEmpty)
        #expect(controller.snapshot.isEmpty)
        #expect(controller.statistics.ignoredEvents == 3)
        #expect(fixture.log.ignoredCounts == [2, 1])
        try await fixture.fetch()
        #expect(controller.snapshot.object(withID: 9) == nil)
        #expect(controller.snapshot.object(withID: 1) != nil)
        #expect(controller.snapshot.object(withID: 2)?.score == 20)
    }

    @Test func eventsAfterResetAreIgnoredAndReported() async throws {
        var fixture = try await Fixture.loaded()
        let changes = fixture.reset()
        #expect(changes.deletedItemIDs.count == Fixture.seed.count)
        #expect(changes.deletedSectionNames == ["a", "b"])
        #expect(fixture.controller.state.isIdle)
        #expect(fixture.controller.apply([.inserted(Item(9, section: "a", score: 1)), .deleted(3)]).isEmpty)
        #expect(fixture.controller.snapshot.isEmpty)
        #expect(fixture.controller.statistics.ignoredEvents == 2)
        #expect(fixture.log.ignoredCounts == [2])
        try await fixture.fetch()
        #expect(fixture.controller.snapshot.object(withID: 9) == nil)
        #expect(fixture.controller.snapshot.object(withID: 3) != nil)
    }

    @Test(.tags(.concurrent)) func eventsDuringTheFirstFetchAreReplayedOntoItsResult() async throws {
        let gate = EventHarness.Gate()
        var fixture = Fixture(request: gate)
        let controller = fixture.controller
        let fetch = Task { try await controller.performFetch() }
        defer { gate.open() }
        #expect(await EventHarness.eventually { gate.waiters > 0 })
        let during: [EntityEvent<Item>] = [
            .inserted(Item(9, section: "a", score: 15)), .updated(Item(4, section: "b", score: 5)), .deleted(1),
        ]
        #expect(controller.apply(during).isEmpty, "nothing is shown yet")
        #expect(controller.snapshot.isEmpty)
        gate.open()
        let changes = try await fetch.value
        fixture.reference.fetch(Fixture.seed)
        during.forEach { fixture.reference.apply($0) }
        expectContract(changes, from: SnapshotModel(sections: []), to: fixture.model)
        fixture.expectMatchesReference()
        #expect(controller.statistics.ignoredEvents == 0)
        #expect(fixture.log.ignoredCounts.isEmpty)
    }

    /// During a refetch, events apply at once and are replayed onto the new result, so none is lost.
    @Test(.tags(.concurrent)) func eventsDuringARefetchApplyAtOnceAndSurviveIt() async throws {
        let gate = EventHarness.Gate()
        gate.open()
        var fixture = Fixture(request: gate)
        try await fixture.fetch()
        gate.close()
        let controller = fixture.controller
        fixture.store.items = Fixture.seed + [Item(6, section: "b", score: 20)]
        let refetch = Task { try await controller.performFetch() }
        defer { gate.open() }
        #expect(await EventHarness.eventually { gate.waiters > 0 })
        let during: [EntityEvent<Item>] = [.inserted(Item(9, section: "c", score: 1)), .deleted(2)]
        #expect(fixture.apply(during).insertedItemIDs == [9])
        let beforeRefetch = fixture.model
        gate.open()
        let changes = try await refetch.value
        fixture.reference.fetch(fixture.store.items)
        during.forEach { fixture.reference.apply($0) }
        expectContract(changes, from: beforeRefetch, to: fixture.model)
        fixture.expectMatchesReference()
        #expect(changes.insertedItemIDs == [6])
    }

    // MARK: Failing and sloppy requests

    @Test func aFailingRefetchKeepsTheObjectsAndIsReported() async throws {
        let fixture = try await Fixture.loaded()
        let before = fixture.model
        fixture.store.fails = true
        let controller = fixture.controller
        await #expect(throws: FakeStore.Failure.self) { try await controller.performFetch() }
        #expect(controller.state.error is FakeStore.Failure)
        #expect(fixture.model == before)
        #expect(fixture.controller.statistics.failedFetches == 1)
        #expect(fixture.log.fetchFailures.count == 1)
        #expect(fixture.log.fetchFailures.first is FakeStore.Failure)
        #expect(fixture.recorder.deliveryCount == 0)
    }

    @Test func aFailingFirstFetchLeavesTheControllerNotLive() async throws {
        var fixture = Fixture()
        fixture.store.fails = true
        let controller = fixture.controller
        await #expect(throws: FakeStore.Failure.self) { try await controller.performFetch() }
        #expect(fixture.controller.state.error is FakeStore.Failure)
        #expect(fixture.controller.snapshot.isEmpty)
        #expect(fixture.controller.apply(.inserted(Item(9))).isEmpty)
        #expect(fixture.controller.statistics.ignoredEvents == 1)
        fixture.store.fails = false
        try await fixture.fetch()
        #expect(fixture.controller.state.isLoaded)
        #expect(fixture.controller.statistics.failedFetches == 1)
    }

    /// The first occurrence of a repeated id wins; the rest are dropped, counted and reported.
    @Test func aFetchResultWithARepeatedIDKeepsTheFirstOccurrence() async throws {
        let items = [
            Item(1, section: "a", score: 5, title: "first"), Item(2, section: "a", score: 1),
            Item(1, section: "b", score: 0, title: "second"),
        ]
        var fixture = Fixture(items)
        try await fixture.fetch()
        #expect(fixture.model.ids == [[2, 1]])
        #expect(fixture.controller.snapshot.object(withID: 1)?.title == "first")
        #expect(fixture.controller.statistics.duplicateFetchedIDs == 1)
        #expect(fixture.log.duplicateIDs == [[1]])
    }

    // MARK: Malformed events

    @Test func aMalformedEventFromTheBusIsCountedAndTheOthersApply() async throws {
        var fixture = try await Fixture.loaded()
        let bus = EventBus<Item>()
        let subscription = fixture.controller.observe(bus)
        defer { subscription.cancel() }
        bus.publish(.inserted(Item(9, section: "a", score: 1)))
        bus.publishMalformedEvent(EventHarness.DecodingError(payload: "{oops"))
        bus.publish(.deleted(4))
        fixture.reference.apply(.inserted(Item(9, section: "a", score: 1)))
        fixture.reference.apply(.deleted(4))
        fixture.expectMatchesReference()
        #expect(fixture.controller.statistics.malformedEvents == 1)
        #expect(fixture.log.malformedPayloads == ["{oops"])
        fixture.recorder.expectChain()
    }

    @Test func aMalformedEventInADecodedDeliveryDoesNotDropTheOthers() async throws {
        var fixture = try await Fixture.loaded()
        let source = DecodingSource()
        let subscription = fixture.controller.observe(source)
        defer { subscription.cancel() }
        let valid: [EntityEvent<Item>] = [
            .updated(Item(1, section: "b", score: 40)), .inserted(Item(9, section: "c", score: 2)),
        ]
        source.deliver([.event(valid[0]), .garbage("\u{0}bad"), .event(valid[1]), .garbage("")])
        valid.forEach { fixture.reference.apply($0) }
        fixture.expectMatchesReference()
        #expect(fixture.controller.statistics.malformedEvents == 2)
        #expect(fixture.log.malformedPayloads == ["\u{0}bad", ""])
        #expect(fixture.recorder.deliveryCount == 1, "the valid events of one delivery form one change set")
        fixture.recorder.expectChain()
    }

    @Test func aBatchMixingValidAndNoOpBadEventsAppliesEveryValidOne() async throws {
        var fixture = try await Fixture.loaded()
        let changes = fixture.apply([
            .updated(Item(99, section: "a", score: -1)),  // unknown, excluded: nothing
            .deleted(999),  // unknown: nothing
            .inserted(Item(9, section: "c", score: 3)),  // new section
            .updated(Item(2, section: "a", score: 20)),  // equal content: nothing
            .updated(Item(1, section: "a", score: 30)),  // moves to the end of "a"
            .inserted(Item(5, section: "a", score: 20, title: "t")),  // known: update in place
            .deleted(3), .deleted(3),  // duplicate delete
            .updated(Item(4, section: "b", score: -4)),  // no longer included: removed, "b" empties
            .updated(Item(10, section: "b", score: 7)),  // unknown, included: inserted, "b" stays
        ])
        #expect(Set(changes.insertedItemIDs) == [9, 10])
        #expect(Set(changes.deletedItemIDs) == [3, 4])
        #expect(changes.movedItemIDs == [1])
        #expect(Set(changes.updatedItemIDs) == [1, 5])
        #expect(changes.insertedSectionNames == ["c"])
        fixture.recorder.expectChain()
    }
}

/// A source that decodes a delivery of wire payloads, reporting those it cannot decode.
private final class DecodingSource: EventSource, Sendable {
    enum Payload {
        case event(EntityEvent<Item>)
        case garbage(String)
    }

    private let subscribers = Locked<[UInt64: EventSubscriber<Item>]>([:])
    private let nextID = Atomic<UInt64>(0)

    func subscribe(_ subscriber: EventSubscriber<Item>) -> EventSubscription {
        let id = nextID.add(1, ordering: .relaxed).newValue
        subscribers.withLock { $0[id] = subscriber }
        return EventSubscription { [weak self] in _ = self?.subscribers.withLock { $0.removeValue(forKey: id) } }
    }

    func deliver(_ payloads: [Payload]) {
        for subscriber in subscribers.withLock({ Array($0.values) }) {
            var events: [EntityEvent<Item>] = []
            for payload in payloads {
                switch payload {
                case .event(let event): events.append(event)
                case .garbage(let text): subscriber.reportMalformedEvent(EventHarness.DecodingError(payload: text))
                }
            }
            subscriber.receive(events)
        }
    }
}

// MARK: - Harness shared by BadInputTests, EventBusTests, AsyncSequenceSourceTests and ConcurrencyTests
