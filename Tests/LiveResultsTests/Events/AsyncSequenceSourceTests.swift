import Foundation
import LiveResults
import Synchronization
import Testing

/// Any `AsyncSequence` of events is an event source (the *LiveEvents* article). Delivery is asynchronous: the tests
/// await the controller's `changes` (subscribed before producing events) or poll with a deadline.
@Suite("AsyncSequence source", .timeLimit(.minutes(5)), .tags(.concurrent))
struct AsyncSequenceSourceTests {
    typealias Fixture = EventHarness.Fixture

    struct SourceError: Error {}

    @Test func anObservedStreamAppliesItsEvents() async throws {
        var fixture = try await Fixture.loaded()
        let changes = fixture.controller.changes
        let (events, continuation) = AsyncStream.makeStream(of: EntityEvent<Item>.self)
        let subscription = fixture.controller.observe(events)
        defer { subscription.cancel() }
        let sent: [EntityEvent<Item>] = [
            .inserted(Item(9, section: "c", score: 1)), .deleted(1), .updated(Item(4, section: "a", score: 0)),
        ]
        for event in sent {
            continuation.yield(event)
            fixture.reference.apply(event)
        }
        let expected = fixture.reference.snapshot
        #expect(await EventHarness.eventually { fixture.recorder.deliveries.last?.after == expected })
        fixture.expectMatchesReference()
        let delivered = await EventHarness.collect(fixture.recorder.deliveryCount, from: changes)
        #expect(
            delivered == fixture.recorder.changeSets, "the changes stream and the delegate see the same change sets")
        #expect(!delivered.isEmpty)
        fixture.recorder.expectChain()
    }

    /// Awaiting the `changes` stream: one event, one change set.
    @Test func eachStreamedEventArrivesOnTheChangesStream() async throws {
        let fixture = try await Fixture.loaded()
        let changes = fixture.controller.changes
        let (events, continuation) = AsyncStream.makeStream(of: EntityEvent<Item>.self)
        let subscription = fixture.controller.observe(events)
        defer { subscription.cancel() }
        continuation.yield(.updated(Item(2, section: "a", score: 20, title: "streamed")))
        let delivered = await EventHarness.collect(1, from: changes)
        #expect(delivered.map(\.updatedItemIDs) == [[2]])
        #expect(fixture.controller.snapshot.object(withID: 2)?.title == "streamed")
    }

    @Test func aThrowingSequenceIsReportedAsAFailedSource() async throws {
        var fixture = try await Fixture.loaded()
        let (events, continuation) = AsyncThrowingStream.makeStream(of: EntityEvent<Item>.self)
        let subscription = fixture.controller.observe(events)
        defer { subscription.cancel() }
        let inserted = EntityEvent.inserted(Item(9, section: "a", score: 1))
        continuation.yield(inserted)
        continuation.finish(throwing: SourceError())
        #expect(await EventHarness.eventually { fixture.controller.statistics.failedSources == 1 })
        #expect(fixture.log.sourceFailures.count == 1)
        #expect(fixture.log.sourceFailures.first is SourceError)
        fixture.reference.apply(inserted)
        fixture.expectMatchesReference()
    }

    /// Cancelling (or releasing) the subscription ends the consuming task, which terminates the stream.
    @Test(arguments: [false, true])
    func endingTheSubscriptionStopsTheSequence(byReleasing: Bool) async throws {
        let fixture = try await Fixture.loaded()
        let terminated = EventHarness.Flag()
        let (events, continuation) = AsyncStream.makeStream(of: EntityEvent<Item>.self)
        continuation.onTermination = { _ in terminated.set() }
        var subscription: EventSubscription? = fixture.controller.observe(events)
        continuation.yield(.inserted(Item(9, section: "a", score: 1)))
        #expect(await EventHarness.eventually { fixture.recorder.deliveryCount == 1 })
        #expect(fixture.controller.snapshot.object(withID: 9) != nil)
        if byReleasing { subscription = nil } else { subscription?.cancel() }
        #expect(await EventHarness.eventually { terminated.isSet }, "the consuming task did not stop")
        let before = fixture.model
        let result = continuation.yield(.deleted(9))
        #expect(result.isTerminated)
        #expect(fixture.model == before)
        #expect(fixture.recorder.deliveryCount == 1)
        #expect(subscription?.isCancelled ?? true)
    }

    @Test func streamedEventsBeforeTheFirstFetchAreIgnored() async throws {
        var fixture = Fixture()
        let (events, continuation) = AsyncStream.makeStream(of: EntityEvent<Item>.self)
        let subscription = fixture.controller.observe(events)
        defer { subscription.cancel() }
        continuation.yield(.inserted(Item(9, section: "a", score: 1)))
        #expect(await EventHarness.eventually { fixture.controller.statistics.ignoredEvents == 1 })
        #expect(fixture.log.ignoredCounts == [1])
        try await fixture.fetch()
        #expect(fixture.controller.snapshot.object(withID: 9) == nil)
    }
}

extension AsyncStream.Continuation.YieldResult {
    fileprivate var isTerminated: Bool { if case .terminated = self { true } else { false } }
}
