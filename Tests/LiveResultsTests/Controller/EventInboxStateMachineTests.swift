@testable import LiveResults
import Testing

/// The inbox's transitions, one test each, on the value alone: which thread drains, what each batch holds, and
/// when a fetch result must give way to an invalidation still waiting.
@Suite("Event inbox state machine")
struct EventInboxStateMachineTests {
    typealias Inbox = _EventInbox<Item>

    static let first: [EntityEvent<Item>] = [.inserted(Item(1)), .deleted(2)]
    static let second: [EntityEvent<Item>] = [.updated(Item(3, score: 3))]

    /// The events queued while a thread drains, or `nil` when the inbox is idle.
    static func queued(_ inbox: Inbox) -> [EntityEvent<Item>]? {
        guard case .draining(let queued) = inbox.state else { return nil }
        return queued
    }

    @Test func receivingWhileIdleMakesTheCallerTheDrainerOfItsOwnEvents() {
        var inbox = Inbox()
        #expect(inbox.receive(Self.first) == .drain)
        #expect(Self.queued(inbox) == [], "draining; the caller applies its events without queueing them")
    }

    @Test func receivingWhileAnotherThreadDrainsQueuesInOrder() {
        var inbox = Inbox()
        _ = inbox.receive(Self.first)
        #expect(inbox.receive(Self.second) == .queued, "the draining thread takes them")
        #expect(inbox.receive(Self.first) == .queued)
        #expect(Self.queued(inbox) == Self.second + Self.first)
    }

    @Test func theNextBatchIsEverythingQueued() {
        var inbox = Inbox()
        _ = inbox.receive([])
        _ = inbox.receive(Self.first)
        _ = inbox.receive(Self.second)
        guard case .apply(let batch) = inbox.nextBatch() else { Issue.record("a batch waits"); return }
        #expect(batch == Self.first + Self.second)
        #expect(Self.queued(inbox) == [], "still draining, with nothing queued")
    }

    @Test func eventsArrivingDuringABatchJoinTheNextOne() {
        var inbox = Inbox()
        _ = inbox.receive(Self.first)
        #expect(inbox.receive(Self.second) == .queued, "the drainer is applying the first batch")
        guard case .apply(let batch) = inbox.nextBatch() else { Issue.record("a batch waits"); return }
        #expect(batch == Self.second)
    }

    @Test func nothingQueuedEndsTheTurnAndTheNextReceiverDrains() {
        var inbox = Inbox()
        _ = inbox.receive(Self.first)
        guard case .stop = inbox.nextBatch() else { Issue.record("nothing waits"); return }
        #expect(Self.queued(inbox) == nil, "idle")
        #expect(inbox.receive(Self.second) == .drain)
    }

    @Test func anEmptyDeliveryStillTakesATurn() {
        var inbox = Inbox()
        #expect(inbox.receive([]) == .drain)
        guard case .stop = inbox.nextBatch() else { Issue.record("nothing waits"); return }
        #expect(Self.queued(inbox) == nil)
    }

    /// The interleaving of a refetch's result and a source's invalidation: the invalidation waits behind a
    /// batch another thread is delivering, and the inbox says so until the drainer takes it.
    @Test func anInvalidationIsHeldUntilTheDrainerTakesIt() {
        var inbox = Inbox()
        #expect(!inbox.holdsInvalidation, "idle")
        _ = inbox.receive(Self.first)
        #expect(!inbox.holdsInvalidation, "draining, nothing queued")
        _ = inbox.receive(Self.second + [.invalidated])
        #expect(inbox.holdsInvalidation, "a result shown now would predate it")
        _ = inbox.nextBatch()
        #expect(!inbox.holdsInvalidation, "taken: applying it starts the refetch")
    }
}
