/// An in-process broadcast ``EventSource``: every subscriber receives every published batch.
///
/// ```swift
/// let bus = EventBus<Post>()
/// let subscription = controller.observe(bus)
/// bus.publish(.inserted(post))
/// ```
///
/// Publishing from one thread delivers batches to each subscriber in publishing order. Subscribers
/// run on the publishing thread, outside the bus's lock, so they may publish or subscribe in turn.
public final class EventBus<Entity: FetchableEntity>: EventSource, Sendable {
    @usableFromInline let subscribers = _Lock(_Subscribers<EventSubscriber<Entity>>())

    /// Creates a bus without subscribers.
    @inlinable public init() {}

    /// The number of active subscriptions.
    @inlinable public var subscriberCount: Int {
        subscribers.withLock { $0.count }
    }

    /// Delivers `events` as one batch to every subscriber.
    ///
    /// - Complexity: O(*s*) for *s* subscribers, plus their work.
    @inlinable public func publish(_ events: [EntityEvent<Entity>]) {
        guard !events.isEmpty else { return }
        for subscriber in subscribers.withLock({ $0.all }) {
            subscriber.receive(events)
        }
    }

    /// Delivers one event to every subscriber.
    ///
    /// - Complexity: O(*s*) for *s* subscribers, plus their work.
    @inlinable public func publish(_ event: EntityEvent<Entity>) {
        for subscriber in subscribers.withLock({ $0.all }) {
            subscriber.receive(event)
        }
    }

    /// Reports a malformed event to every subscriber, for buses fed by a decoder.
    ///
    /// - Complexity: O(*s*) for *s* subscribers, plus their work.
    @inlinable public func publishMalformedEvent(_ error: any Error) {
        for subscriber in subscribers.withLock({ $0.all }) {
            subscriber.reportMalformedEvent(error)
        }
    }

    /// Adds a subscriber that receives every batch published from now on.
    ///
    /// - Returns: A subscription that removes the subscriber when cancelled or released.
    /// - Complexity: O(1) amortized.
    @inlinable public func subscribe(_ subscriber: EventSubscriber<Entity>) -> EventSubscription {
        let id = subscribers.withLock { $0.add(subscriber) }
        return EventSubscription { [weak self] in
            self?.subscribers.withLock { $0.remove(id) }
        }
    }
}
