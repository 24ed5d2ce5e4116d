/// Events from sources waiting for the thread that drains them, one batch per turn, so that events arriving
/// during a batch join the next one. A value under the controller's lock.
@usableFromInline struct _EventInbox<Entity: FetchableEntity>: Sendable {
    /// The events not yet taken, in the order they arrived.
    @usableFromInline var events: [EntityEvent<Entity>] = []
    /// Whether a thread is draining the inbox.
    @usableFromInline var isDraining = false

    @inlinable init() {}

    /// Queues `events`.
    ///
    /// - Returns: Whether the caller is to drain the inbox (no other thread does).
    @inlinable mutating func receive(_ events: [EntityEvent<Entity>]) -> Bool {
        self.events.append(contentsOf: events)
        guard !isDraining else { return false }
        isDraining = true
        return true
    }

    /// Whether an ``EntityEvent/invalidated`` waits to be applied: a fetch result shown now would predate it.
    ///
    /// - Complexity: O(*k*) for the *k* events waiting.
    @inlinable var holdsInvalidation: Bool {
        events.contains { if case .invalidated = $0 { true } else { false } }
    }

    /// Takes everything waiting as the next batch, or ends the draining turn when nothing waits.
    @inlinable mutating func nextBatch() -> [EntityEvent<Entity>]? {
        guard !events.isEmpty else {
            isDraining = false
            return nil
        }
        defer { events = [] }
        return events
    }
}
