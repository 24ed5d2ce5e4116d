/// One update stream: what it has not read yet, bounded, and its waiting consumer.
///
/// The controller pushes each version under its own lock (then this one's); the consumer takes them
/// under this lock alone and turns them into ``ResultsUpdate``s outside it. A catch-up is worked out
/// when it is read (``ResultsUpdates/Iterator/next()``), under the controller's lock, to the version the
/// observers have then: it absorbs every version pushed before it is read.
///
/// A consumer that falls behind by more than `bufferLimit` versions never makes the stream hold more:
/// what it has not read is replaced by one catch-up from the last version it read. Nothing is lost,
/// nothing grows.
@usableFromInline final class _UpdateSubscriber<Entity: FetchableEntity>: Sendable {
    /// What the consumer gets next.
    ///
    /// Each payload is one object, shared by every stream: an enum whose payloads were the change set and
    /// the arrays themselves was copied and destroyed through generic, unspecialized value witnesses,
    /// some 5,000 instructions per version and stream.
    @usableFromInline enum Item: Sendable {
        /// The whole results of a version.
        case whole(_VersionResults<Entity>)
        /// A delivered change set and what a stream's update carries with it.
        case changes(_VersionChanges<Entity>)
        /// The change set from version `from` to the version the observers have when it is read; the whole
        /// results then when `from` is `nil` or no longer held.
        case catchUp(from: UInt64?)
    }

    @usableFromInline struct State: Sendable {
        @usableFromInline var queue: [Item?] = []
        @usableFromInline var head = 0
        /// The version the consumer has once it applied what it took.
        @usableFromInline var taken: UInt64?
        @usableFromInline var waiter: _UpdateWaiter?
        /// No version comes any more (the controller is gone): what is queued is still read.
        @usableFromInline var isEnded = false
        /// The consumer stopped: nothing more is read.
        @usableFromInline var isCancelled = false

        @usableFromInline init() {}

        @inlinable var pendingCount: Int { queue.count - head }
    }

    @usableFromInline let bufferLimit: Int
    @usableFromInline let state = _Lock(State())

    @inlinable init(bufferLimit: Int) {
        self.bufferLimit = Swift.max(1, bufferLimit)
    }

    /// Queues the stream's first item.
    @inlinable func start(with item: Item) {
        state.withLock { $0.queue = [item] }
    }

    /// Queues a delivered change set, or lets a catch-up that waits absorb it.
    ///
    /// - Returns: The consumer to resume, if it waits, and whether the backlog was replaced by a catch-up.
    @inlinable func push(_ item: Item) -> (waiter: _UpdateWaiter?, collapsed: Bool) {
        state.withLock { state in
            guard !state.isEnded && !state.isCancelled else { return (nil, false) }
            var collapsed = false
            if state.pendingCount > 0, case .catchUp = state.queue[state.queue.count - 1] {
                // Absorbed: the catch-up goes to the version the observers have when it is read.
            } else if state.pendingCount >= bufferLimit {
                let from: UInt64?
                switch state.queue[state.head]! {
                case .whole: from = nil
                case .catchUp(let earlier): from = earlier
                case .changes: from = state.taken
                }
                state.queue = [.catchUp(from: from)]
                state.head = 0
                collapsed = true
            } else {
                state.queue.append(item)
            }
            defer { state.waiter = nil }
            return (state.waiter, collapsed)
        }
    }

    /// Settles a catch-up taken from the queue at version `sequence`, the observers' version: drops what
    /// was queued since (the catch-up covers it). Called under the controller's lock.
    @inlinable func settle(at sequence: UInt64) {
        state.withLock { state in
            state.queue.removeAll(keepingCapacity: true)
            state.head = 0
            state.taken = sequence
        }
    }

    /// Takes the next item, or `nil` when none is queued. A catch-up is settled by the caller
    /// (``settle(at:)``).
    ///
    /// - Returns: The item and the version the consumer had before it; `.some(nil)` when the stream is over.
    @inlinable func take() -> (item: Item, base: UInt64?)?? {
        state.withLock { Self.take(from: &$0) }
    }

    /// Takes the next item as ``take()`` does, or, when none is queued, keeps `handler` to call once one is or
    /// the stream is over (in place of a handler kept before).
    @inlinable func take(orWhenReady handler: @escaping @Sendable () -> Void) -> (item: Item, base: UInt64?)?? {
        state.withLock { state in
            let taken = Self.take(from: &state)
            if case .none = taken { state.waiter = .handler(handler) }
            return taken
        }
    }

    @inlinable static func take(from state: inout State) -> (item: Item, base: UInt64?)?? {
        if state.isCancelled { return .some(nil) }
        guard state.pendingCount > 0 else { return state.isEnded ? .some(nil) : nil }
        let item = state.queue[state.head]!
        state.queue[state.head] = nil
        state.head += 1
        if state.head == state.queue.count {
            state.queue.removeAll(keepingCapacity: true)
            state.head = 0
        } else if state.head >= 32 && state.head * 2 >= state.queue.count {
            // A consumer that stays a little behind never empties the queue: the slots it read go once
            // they are half of it, which keeps the queue within twice the backlog at O(1) amortized.
            state.queue.removeFirst(state.head)
            state.head = 0
        }
        let base = state.taken
        switch item {
        case .whole(let results): state.taken = results.sequence
        case .changes(let changes): state.taken = changes.sequence
        case .catchUp: break
        }
        return (item, base)
    }

    /// Waits until an item is queued or the stream is over.
    @inlinable nonisolated(nonsending) func wait() async {
        await withTaskCancellationHandler {
            await withUnsafeContinuation { (continuation: UnsafeContinuation<Void, Never>) in
                let isReady = state.withLock { state in
                    guard state.pendingCount == 0 && !state.isEnded && !state.isCancelled else { return true }
                    state.waiter = .task(continuation)
                    return false
                }
                if isReady { continuation.resume() }
            }
        } onCancel: {
            cancel()
        }
    }

    /// Stops the stream for its consumer: nothing more is read.
    @inlinable func cancel() {
        // What it held is released at once: no one reads it.
        finish { state in
            state.isCancelled = true
            state.queue.removeAll()
            state.head = 0
        }
    }

    /// Ends the stream once what is queued is read: the controller is gone.
    @inlinable func end() {
        finish { $0.isEnded = true }
    }

    @inlinable func finish(_ mark: (inout State) -> Void) {
        let waiter = state.withLock { state in
            mark(&state)
            defer { state.waiter = nil }
            return state.waiter
        }
        waiter?.resume()
    }
}

/// The whole results of a version, as an update stream's first item.
@usableFromInline final class _VersionResults<Entity: FetchableEntity>: Sendable {
    @usableFromInline let storage: _SectionedStorage<Entity>
    @usableFromInline let sequence: UInt64

    @inlinable init(_ storage: _SectionedStorage<Entity>, sequence: UInt64) {
        self.storage = storage
        self.sequence = sequence
    }
}

/// A delivered change set, from the version before `sequence`, with the entities its inserted and updated
/// items carry, in the change set's order: taken once per version, under the controller's lock, for every
/// stream.
@usableFromInline final class _VersionChanges<Entity: FetchableEntity>: Sendable {
    @usableFromInline let changes: ChangeSet<Entity>
    @usableFromInline let inserted: [Entity]
    @usableFromInline let updated: [Entity]
    @usableFromInline let sequence: UInt64
    /// The names of the version and of its base, worked out once for every stream when they are not numbers
    /// (a window's versions named by its contents); `nil`: the stream names them.
    @usableFromInline let names: (version: ResultsVersion, base: ResultsVersion)?

    @inlinable init(
        _ changes: ChangeSet<Entity>, inserted: [Entity], updated: [Entity], sequence: UInt64,
        names: (version: ResultsVersion, base: ResultsVersion)? = nil
    ) {
        self.changes = changes
        self.inserted = inserted
        self.updated = updated
        self.sequence = sequence
        self.names = names
    }
}
