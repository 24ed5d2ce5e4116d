import Foundation
import LiveResults
import Testing

/// `EventBus`, the in-process `EventSource`, and `controller.observe(_:)` (the *LiveEvents* and
/// *ConcurrencyAndDelivery* articles).
@Suite("EventBus", .timeLimit(.minutes(5)), .tags(.concurrent))
struct EventBusTests {
    typealias Fixture = EventHarness.Fixture

    @Test func anObservedBusAppliesPublishedEvents() async throws {
        var fixture = try await Fixture.loaded()
        let bus = EventBus<Item>()
        let subscription = fixture.controller.observe(bus)
        defer { subscription.cancel() }
        let events: [EntityEvent<Item>] = [
            .inserted(Item(9, section: "a", score: 15)), .deleted(3), .updated(Item(4, section: "c", score: 1)),
        ]
        bus.publish(events)
        bus.publish(.updated(Item(2, section: "a", score: 20, title: "live")))
        events.forEach { fixture.reference.apply($0) }
        fixture.reference.apply(.updated(Item(2, section: "a", score: 20, title: "live")))
        fixture.expectMatchesReference()
        #expect(fixture.recorder.deliveryCount == 2)
        fixture.recorder.expectChain()
    }

    @Test func cancellingTheSubscriptionStopsDelivery() async throws {
        let fixture = try await Fixture.loaded()
        let bus = EventBus<Item>()
        let subscription = fixture.controller.observe(bus)
        bus.publish(.inserted(Item(9, section: "a", score: 1)))
        subscription.cancel()
        let before = fixture.model
        bus.publish([.inserted(Item(10, section: "a", score: 1)), .deleted(1)])
        #expect(subscription.isCancelled)
        #expect(bus.subscriberCount == 0)
        #expect(fixture.model == before)
        #expect(before.indexPath(of: 9) != nil)
        #expect(fixture.recorder.deliveryCount == 1)
    }

    @Test func releasingTheSubscriptionStopsDelivery() async throws {
        let fixture = try await Fixture.loaded()
        let bus = EventBus<Item>()
        var subscription: EventSubscription? = fixture.controller.observe(bus)
        #expect(subscription?.isCancelled == false)
        #expect(bus.subscriberCount == 1)
        subscription = nil
        #expect(bus.subscriberCount == 0)
        let before = fixture.model
        bus.publish(.deleted(1))
        #expect(fixture.model == before)
        #expect(fixture.recorder.deliveryCount == 0)
    }

    @Test func subscriberCountFollowsSubscriptions() async throws {
        let fixture = try await Fixture.loaded()
        let bus = EventBus<Item>()
        #expect(bus.subscriberCount == 0)
        let first = fixture.controller.observe(bus)
        let second = fixture.controller.observe(bus)
        #expect(bus.subscriberCount == 2)
        first.cancel()
        first.cancel()
        #expect(bus.subscriberCount == 1)
        second.cancel()
        #expect(bus.subscriberCount == 0)
    }

    /// Both controllers get every event; each applies its own inclusion rule.
    @Test func twoControllersOnOneBusBothReceive() async throws {
        var all = try await Fixture.loaded()
        var high = try await Fixture.loaded(isIncluded: { $0.score >= 15 })
        let bus = EventBus<Item>()
        let subscriptions = [all.controller.observe(bus), high.controller.observe(bus)]
        defer { subscriptions.forEach { $0.cancel() } }
        let events: [EntityEvent<Item>] = [
            .inserted(Item(9, section: "a", score: 12)), .updated(Item(3, section: "b", score: 40)), .deleted(2),
        ]
        bus.publish(events)
        events.forEach {
            all.reference.apply($0)
            high.reference.apply($0)
        }
        all.expectMatchesReference()
        high.expectMatchesReference()
        #expect(all.controller.snapshot.object(withID: 9) != nil)
        #expect(high.controller.snapshot.object(withID: 9) == nil)
        #expect(high.controller.snapshot.object(withID: 3)?.score == 40)
        all.recorder.expectChain()
        high.recorder.expectChain()
    }

    enum Reentry: String, CaseIterable, Sendable {
        case publishToTheBus, applyToTheController
    }

    /// Each delivered insert of id n < 14 triggers, from inside `didChangeContent`, the insert of n + 1.
    @Test(arguments: Reentry.allCases)
    func changingFromInsideADelegateCallbackIsAppliedInOrder(_ reentry: Reentry) async throws {
        let fixture = try await Fixture.loaded()
        let bus = EventBus<Item>()
        let subscription = fixture.controller.observe(bus)
        defer { subscription.cancel() }
        fixture.recorder.setHook { controller, changes in
            guard let id = changes.insertedItemIDs.first, id < 14 else { return }
            _ = controller.snapshot.count  // reading inside a callback must not deadlock either
            let next = EntityEvent.inserted(Item(id + 1, section: "c", score: id))
            switch reentry {
            case .publishToTheBus: bus.publish(next)
            case .applyToTheController: controller.apply(next)
            }
        }
        let finished = await EventHarness.finishes { bus.publish(.inserted(Item(10, section: "c", score: 9))) }
        #expect(finished, "a re-entrant change deadlocked")
        #expect(fixture.recorder.changeSets.map(\.insertedItemIDs) == [[10], [11], [12], [13], [14]])
        #expect(fixture.model.ids.last == [10, 11, 12, 13, 14])
        fixture.recorder.expectChain()
    }

    /// While the first batch is being delivered (its delegate callback waits), many threads publish; their
    /// events are coalesced into the next change set.
    @Test func eventsPublishedWhileABatchIsAppliedAreCoalesced() async throws {
        let publishers = 32
        var fixture = try await Fixture.loaded(Self.coalescingSeed(publishers))
        let bus = EventBus<Item>()
        let subscription = fixture.controller.observe(bus)
        defer { subscription.cancel() }
        let started = EventHarness.Flag()
        fixture.recorder.setHook { _, _ in
            guard !started.isSet else { return }
            started.set()
            let group = DispatchGroup()
            for publisher in 0..<publishers {
                DispatchQueue.global().async(group: group) { bus.publish(Self.coalescingEvents(publisher)) }
            }
            _ = group.wait(timeout: .now() + 10)
        }
        let trigger = EntityEvent.updated(Item(1000, section: "t", score: 1, title: "trigger"))
        #expect(await EventHarness.finishes { bus.publish(trigger) })
        fixture.reference.apply(trigger)
        (0..<publishers).forEach { Self.coalescingEvents($0).forEach { fixture.reference.apply($0) } }
        fixture.expectMatchesReference()
        let delivered = fixture.recorder.deliveryCount
        #expect(delivered <= publishers + 1)
        #expect(delivered == 2, "the \(publishers) batches published during the first delivery form one change set")
        fixture.recorder.expectChain()
    }

    @Test func aCustomEventSourceWorks() async throws {
        var fixture = try await Fixture.loaded()
        let source = ManualSource()
        let subscription = fixture.controller.observe(source)
        #expect(source.subscriberCount == 1)
        let event = EntityEvent.updated(Item(1, section: "b", score: 20, title: "moved"))
        source.send([event])
        fixture.reference.apply(event)
        fixture.expectMatchesReference()
        subscription.cancel()
        #expect(source.subscriberCount == 0)
        source.send([.deleted(2)])
        fixture.expectMatchesReference()
        fixture.recorder.expectChain()
    }

    /// The bus holds its subscribers' controllers weakly: a controller goes away while still subscribed.
    @Test func aBusDoesNotKeepItsControllerAlive() async throws {
        let bus = EventBus<Item>()
        weak var released: FetchedResultsController<Item>?
        var subscription: EventSubscription?
        do {
            let fixture = try await Fixture.loaded()
            released = fixture.controller
            subscription = fixture.controller.observe(bus)
        }
        #expect(released == nil)
        bus.publish(.deleted(1))
        #expect(subscription?.isCancelled == false)
    }

    // MARK: Workload of the coalescing test: disjoint ids, unique scores, so the end state is deterministic.

    static func coalescingSeed(_ publishers: Int) -> [Item] {
        (0..<publishers).map { Item($0, section: "s\($0 % 3)", score: $0 * 10) }
    }

    static func coalescingEvents(_ publisher: Int) -> [EntityEvent<Item>] {
        let id = publisher
        switch publisher % 3 {
        case 0: return [.deleted(id), .inserted(Item(100 + id, section: "n\(id % 4)", score: 5000 + id))]
        case 1: return [.updated(Item(id, section: "s\(id % 3)", score: 3000 - id, title: "moved"))]
        default:
            return [
                .updated(Item(id, section: "s0", score: id * 10, title: "resectioned")),
                .inserted(Item(200 + id, score: 7000 + id)),
            ]
        }
    }
}

/// A minimal custom `EventSource`.
private final class ManualSource: EventSource, Sendable {
    private let subscribers = Locked<(byID: [Int: EventSubscriber<Item>], next: Int)>(([:], 0))

    var subscriberCount: Int { subscribers.withLock { $0.byID.count } }

    func subscribe(_ subscriber: EventSubscriber<Item>) -> EventSubscription {
        let id = subscribers.withLock { state in
            defer { state.next += 1 }
            state.byID[state.next] = subscriber
            return state.next
        }
        return EventSubscription { [weak self] in _ = self?.subscribers.withLock { $0.byID.removeValue(forKey: id) } }
    }

    func send(_ events: [EntityEvent<Item>]) {
        subscribers.withLock { Array($0.byID.values) }.forEach { $0.receive(events) }
    }
}
