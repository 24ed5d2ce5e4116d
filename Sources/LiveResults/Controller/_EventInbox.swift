/// Events from sources waiting for the thread that drains them, one batch per turn, so that events arriving
/// during a batch join the next one. A state machine under the controller's lock: its transitions return
/// what the calling thread does once the lock is released.
///
/// ```
/// idle ──receive──▶ draining([]) ──nextBatch──▶ (apply queued) draining([]) ─ … ─nextBatch (nothing queued)──▶ idle
///                   ╰──receive: queued += events; the caller leaves them to the thread that drains
/// ```
///
/// The thread that finds the inbox idle applies its own events first, without queueing them: the usual
/// delivery, one batch with no other thread delivering, takes no turn through the queue.
@usableFromInline struct _EventInbox<Entity: FetchableEntity>: Sendable {
    @usableFromInline enum State: Sendable {
        /// No thread drains the inbox, and nothing waits in it.
        case idle
        /// A thread drains the inbox; `queued` waits for its next turn, in the order the events arrived.
        case draining(queued: [EntityEvent<Entity>])
    }

    /// What the thread that delivered events does after ``receive(_:)``.
    @usableFromInline enum ReceiveAction: Sendable, Equatable {
        /// No thread drains the inbox: this one does, applying its own events first, then each of ``nextBatch()``
        /// until it says ``NextBatchAction/stop``.
        case drain
        /// Another thread drains the inbox and will take the events in a later turn.
        case queued
    }

    /// What the draining thread does after ``nextBatch()``.
    @usableFromInline enum NextBatchAction: Sendable {
        /// Applies this batch, then asks again.
        case apply([EntityEvent<Entity>])
        /// Nothing was waiting: the draining turn is over, and the next thread to receive events drains.
        case stop
    }

    @usableFromInline var state = State.idle

    @inlinable init() {}

    /// Queues `events`, unless no thread drains the inbox: then the caller drains, starting with them.
    ///
    /// - Returns: ``ReceiveAction/drain`` when no other thread drains the inbox.
    @inlinable mutating func receive(_ events: [EntityEvent<Entity>]) -> ReceiveAction {
        switch state {
        case .idle:
            state = .draining(queued: [])
            return .drain
        case .draining(var queued):
            // Out of the payload while it grows, so that its buffer is not copied.
            state = .idle
            queued.append(contentsOf: events)
            state = .draining(queued: queued)
            return .queued
        }
    }

    /// Takes everything waiting as the next batch, or ends the draining turn when nothing waits.
    @inlinable mutating func nextBatch() -> NextBatchAction {
        guard case .draining(let queued) = state, !queued.isEmpty else {
            state = .idle
            return .stop
        }
        state = .draining(queued: [])
        return .apply(queued)
    }

    /// Whether an ``EntityEvent/invalidated`` waits to be applied: a fetch result shown now would predate it.
    ///
    /// - Complexity: O(*k*) for the *k* events waiting.
    @inlinable var holdsInvalidation: Bool {
        guard case .draining(let queued) = state else { return false }
        return queued.contains { if case .invalidated = $0 { true } else { false } }
    }
}
