/// One ``ResultsChanges`` subscription: the change sets its consumer has not read yet, under a lock of
/// its own, and the consumer waiting for the next one.
///
/// The delivering thread hands each change set over with ``yield(_:)`` (outside the controller's lock):
/// straight to a waiting consumer, else into the buffer as the policy allows. All of it is `@inlinable`,
/// so it is specialized for the entity type; `AsyncStream`, which it replaces, ran unspecialized
/// standard-library code per change set (about 1,900 instructions of generic metadata lookups).
@usableFromInline final class _ChangeSubscriber<Entity: FetchableEntity>: Sendable {
    @usableFromInline struct State: Sendable {
        /// The unread change sets, in chunks of at most ``chunkSize``: `chunks[0][head...]`, then the later
        /// chunks. The slots before `head` were read and are empty. A buffer that grows allocates chunks
        /// instead of moving everything it holds into a larger array (a few hundred instructions per change
        /// set when a consumer reads late).
        @usableFromInline var chunks: [[ChangeSet<Entity>?]] = []
        @usableFromInline var head = 0
        @usableFromInline var unreadCount = 0
        /// The consumer waiting in ``_ChangeSubscriber/next()``; then the buffer is empty.
        @usableFromInline var waiter: UnsafeContinuation<ChangeSet<Entity>?, Never>?
        /// No change set comes any more: the controller is gone or the consumer's task was cancelled.
        /// What is buffered is still read.
        @usableFromInline var isFinished = false

        @inlinable static var chunkSize: Int { 64 }

        @usableFromInline init() {}

        /// Appends a change set after the unread ones.
        @inlinable mutating func append(_ changes: consuming ChangeSet<Entity>?) {
            if let last = chunks.indices.last, chunks[last].count < Self.chunkSize {
                chunks[last].append(changes)
            } else {
                var chunk: [ChangeSet<Entity>?] = []
                chunk.reserveCapacity(Self.chunkSize)
                chunk.append(changes)
                chunks.append(chunk)
            }
            unreadCount += 1
        }

        /// Takes the oldest unread change set, if any.
        @inlinable mutating func takeFirst() -> ChangeSet<Entity>? {
            guard unreadCount > 0 else { return nil }
            let changes = chunks[0][head].take()
            head += 1
            unreadCount -= 1
            if head == chunks[0].count {
                head = 0
                if chunks.count == 1 {
                    chunks[0].removeAll(keepingCapacity: true)
                } else {
                    chunks.removeFirst()
                }
            }
            return changes
        }
    }

    /// How many unread change sets it keeps; `Int.max` without a limit.
    @usableFromInline let limit: Int
    /// Whether, at the limit, a new change set replaces the oldest unread one (else it is dropped).
    @usableFromInline let keepsNewest: Bool
    @usableFromInline let state = _Lock(State())

    @inlinable init(_ policy: ResultsChanges<Entity>.BufferingPolicy) {
        switch policy {
        case .unbounded: (limit, keepsNewest) = (.max, false)
        case .bufferingOldest(let limit): (self.limit, keepsNewest) = (Swift.max(0, limit), false)
        case .bufferingNewest(let limit): (self.limit, keepsNewest) = (Swift.max(0, limit), true)
        }
    }

    /// Hands a change set to the consumer: to its waiting `next()`, else to the buffer, as the policy
    /// allows. Called by one delivering thread at a time, in order. The change set is moved, not copied.
    @inlinable func yield(_ changes: consuming ChangeSet<Entity>) {
        // Moved through an optional into the buffer or to the waiter: a copy would retain its 14 arrays.
        var moving: ChangeSet<Entity>? = consume changes
        let waiter = state.withLock { state -> UnsafeContinuation<ChangeSet<Entity>?, Never>? in
            guard !state.isFinished else { return nil }
            if let waiter = state.waiter {
                state.waiter = nil
                return waiter
            }
            if state.unreadCount < limit {
                state.append(moving.take())
            } else if keepsNewest && limit > 0 {
                _ = state.takeFirst()
                state.append(moving.take())
            }
            return nil
        }
        waiter?.resume(returning: moving.take())
    }

    /// The next change set, waiting for it; `nil` once the subscription is finished and its buffer read.
    /// Cancelling the waiting task finishes the subscription.
    @inlinable nonisolated(nonsending) func next() async -> ChangeSet<Entity>? {
        // A change set already buffered is taken without a continuation.
        let ready = state.withLock { state -> ChangeSet<Entity>?? in
            if let changes = state.takeFirst() { return changes }
            return state.isFinished ? .some(nil) : nil
        }
        if let ready { return ready }
        return await withTaskCancellationHandler {
            await withUnsafeContinuation { (continuation: UnsafeContinuation<ChangeSet<Entity>?, Never>) in
                let ready = state.withLock { state -> ChangeSet<Entity>?? in
                    if let changes = state.takeFirst() { return changes }
                    if state.isFinished { return .some(nil) }
                    precondition(
                        state.waiter == nil, "A changes sequence was read from more than one task at once")
                    state.waiter = continuation
                    return nil
                }
                if let ready { continuation.resume(returning: ready) }
            }
        } onCancel: {
            finish()
        }
    }

    /// Ends the subscription: nothing more is buffered, a waiting consumer gets `nil`, and a consumer
    /// reads what was buffered before, then `nil`.
    @inlinable func finish() {
        let waiter = state.withLock { state -> UnsafeContinuation<ChangeSet<Entity>?, Never>? in
            state.isFinished = true
            defer { state.waiter = nil }
            return state.waiter
        }
        waiter?.resume(returning: nil)
    }
}

/// Keeps a ``ResultsChanges`` subscription registered while the sequence or one of its iterators exists.
@usableFromInline final class _ChangeSubscription<Entity: FetchableEntity>: Sendable {
    @usableFromInline let subscriber: _ChangeSubscriber<Entity>
    @usableFromInline let unsubscribe: @Sendable () -> Void

    @inlinable init(subscriber: _ChangeSubscriber<Entity>, unsubscribe: @escaping @Sendable () -> Void) {
        self.subscriber = subscriber
        self.unsubscribe = unsubscribe
    }

    deinit {
        unsubscribe()
    }
}
