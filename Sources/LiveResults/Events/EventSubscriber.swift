/// The receiving end of a subscription to an ``EventSource``.
///
/// A source calls ``receive(_:)-([EntityEvent<Entity>])`` with each batch it delivers, from any thread.
/// Events delivered to a ``FetchedResultsController`` while it is applying a batch are coalesced into
/// its next batch.
public struct EventSubscriber<Entity: FetchableEntity>: Sendable {
    @usableFromInline let _receive: @Sendable ([EntityEvent<Entity>]) -> Void
    /// Receives one event without a batch of its own: a single event, the usual delivery, costs no array
    /// allocated and freed on the way. A subscriber made from a batch handler wraps it in one.
    @usableFromInline let _receiveOne: @Sendable (EntityEvent<Entity>) -> Void
    @usableFromInline let _reportMalformedEvent: @Sendable (any Error) -> Void

    /// Creates a subscriber from its two handlers.
    ///
    /// - Parameters:
    ///   - receive: Handles a batch of events.
    ///   - reportMalformedEvent: Handles an event the source could not decode.
    @inlinable public init(
        receive: @escaping @Sendable ([EntityEvent<Entity>]) -> Void,
        reportMalformedEvent: @escaping @Sendable (any Error) -> Void = { _ in }
    ) {
        self.init(receive: receive, receiveOne: { receive([$0]) }, reportMalformedEvent: reportMalformedEvent)
    }

    /// A subscriber with a handler of its own for single events.
    @inlinable init(
        receive: @escaping @Sendable ([EntityEvent<Entity>]) -> Void,
        receiveOne: @escaping @Sendable (EntityEvent<Entity>) -> Void,
        reportMalformedEvent: @escaping @Sendable (any Error) -> Void
    ) {
        self._receive = receive
        self._receiveOne = receiveOne
        self._reportMalformedEvent = reportMalformedEvent
    }

    /// Delivers a batch of events.
    ///
    /// - Complexity: O(1), plus the handler's work (for a controller, its
    ///   ``FetchedResultsController/apply(_:)-([EntityEvent<Entity>])``).
    @inlinable public func receive(_ events: [EntityEvent<Entity>]) {
        _receive(events)
    }

    /// Delivers one event.
    ///
    /// - Complexity: O(1), plus the handler's work (for a controller, its
    ///   ``FetchedResultsController/apply(_:)-(EntityEvent<Entity>)``).
    @inlinable public func receive(_ event: EntityEvent<Entity>) {
        _receiveOne(event)
    }

    /// Reports an event the source could not decode. The subscriber counts and reports it; the other
    /// events are unaffected.
    ///
    /// - Complexity: O(1), plus the handler's work.
    @inlinable public func reportMalformedEvent(_ error: any Error) {
        _reportMalformedEvent(error)
    }
}
