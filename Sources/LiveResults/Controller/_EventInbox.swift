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
///
/// A task may wait until what was delivered before it asked is applied (``waitForApplied(_:)``): it waits for the
/// batch being applied and for the one that takes what is queued now, and is released by the ``nextBatch()`` that
/// follows that batch (or at once, when the inbox is idle).
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
    /// Waiting for the events queued now: their batch is the draining thread's next.
    @usableFromInline var waitingForQueued: [CheckedContinuation<Void, Never>] = []
    /// Waiting for the batch the draining thread applies now.
    @usableFromInline var waitingForApplying: [CheckedContinuation<Void, Never>] = []
    /// Released by the last ``nextBatch()``, for the draining thread to resume once the lock is released.
    @usableFromInline var released: [CheckedContinuation<Void, Never>] = []

    @inlinable init() {}

    /// Queues `events`, unless no thread drains the inbox: then the caller drains, starting with them.
    ///
    /// - Returns: ``ReceiveAction/drain`` when no other thread drains the inbox.
    @inlinable mutating func receive(_ events: some Collection<EntityEvent<Entity>>) -> ReceiveAction {
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

    /// Takes everything waiting as the next batch, or ends the draining turn when nothing waits. The batch
    /// applied before it is over: the tasks that waited for it are ``released``.
    @inlinable mutating func nextBatch() -> NextBatchAction {
        if !waitingForApplying.isEmpty { released.append(contentsOf: waitingForApplying) }
        guard case .draining(let queued) = state, !queued.isEmpty else {
            state = .idle
            waitingForApplying = []
            if !waitingForQueued.isEmpty {
                released.append(contentsOf: waitingForQueued)
                waitingForQueued = []
            }
            return .stop
        }
        state = .draining(queued: [])
        (waitingForApplying, waitingForQueued) = (waitingForQueued, [])
        return .apply(queued)
    }

    /// Resumes `continuation` once everything received so far is applied: records it, unless the inbox is idle
    /// (nothing waits, and no batch is being applied), when the caller resumes it.
    ///
    /// - Returns: Whether the continuation was recorded.
    mutating func waitForApplied(_ continuation: CheckedContinuation<Void, Never>) -> Bool {
        guard case .draining = state else { return false }
        waitingForQueued.append(continuation)
        return true
    }

    /// The tasks that the last ``nextBatch()`` released, taken: the draining thread resumes them.
    @inlinable mutating func takeReleased() -> [CheckedContinuation<Void, Never>] {
        guard !released.isEmpty else { return [] }
        defer { released = [] }
        return released
    }

    /// Whether an ``EntityEvent/invalidated`` waits to be applied: a fetch result shown now would predate it.
    ///
    /// - Complexity: O(*k*) for the *k* events waiting.
    @inlinable var holdsInvalidation: Bool {
        guard case .draining(let queued) = state else { return false }
        return queued.contains { if case .invalidated = $0 { true } else { false } }
    }
}
