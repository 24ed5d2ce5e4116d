/// One update stream: what it has not read yet, bounded, and its waiting consumer.
///
/// The controller pushes each version under its own lock (then this one's); the consumer takes them
/// under this lock alone and turns them into ``ResultsUpdate``s outside it, so reading the entities of
/// an update never holds the controller.
///
/// A consumer that falls behind by more than `bufferLimit` versions never makes the stream hold more:
/// what it has not read is replaced by one catch-up from the last version it read to the newest, and
/// later versions extend that catch-up until it is read. Nothing is lost, nothing grows.
@usableFromInline final class _UpdateSubscriber<Entity: FetchableEntity>: Sendable {
    /// What the consumer gets next.
    @usableFromInline enum Item: Sendable {
        /// The whole results.
        case whole(_VersionPoint<Entity>)
        /// A delivered change set, from the version before it.
        case changes(ChangeSet<Entity>, _VersionPoint<Entity>)
        /// The change set composed from one version to another.
        case catchUp(from: _VersionPoint<Entity>, to: _VersionPoint<Entity>)

        @inlinable var target: _VersionPoint<Entity> {
            switch self {
            case .whole(let point), .changes(_, let point), .catchUp(_, let point): point
            }
        }
    }

    @usableFromInline struct State: Sendable {
        @usableFromInline var queue: [Item?] = []
        @usableFromInline var head = 0
        /// The version the consumer has once it applied what it took.
        @usableFromInline var taken: _VersionPoint<Entity>?
        @usableFromInline var waiter: UnsafeContinuation<Void, Never>?
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

    /// Queues a delivered change set and the version after it, or folds it into a catch-up.
    ///
    /// - Returns: The consumer to resume, if it waits, and whether the backlog was replaced by a catch-up.
    @inlinable func push(
        _ changes: ChangeSet<Entity>, _ point: _VersionPoint<Entity>
    ) -> (waiter: UnsafeContinuation<Void, Never>?, collapsed: Bool) {
        state.withLock { state in
            guard !state.isEnded && !state.isCancelled else { return (nil, false) }
            var collapsed = false
            if state.pendingCount > 0, case .catchUp(let from, _) = state.queue[state.queue.count - 1] {
                state.queue[state.queue.count - 1] = .catchUp(from: from, to: point)
            } else if state.pendingCount >= bufferLimit {
                let replacement: Item
                switch state.queue[state.head]! {
                case .whole: replacement = .whole(point)
                case .catchUp(let from, _): replacement = .catchUp(from: from, to: point)
                case .changes: replacement = .catchUp(from: state.taken!, to: point)
                }
                state.queue = [replacement]
                state.head = 0
                collapsed = true
            } else {
                state.queue.append(.changes(changes, point))
            }
            defer { state.waiter = nil }
            return (state.waiter, collapsed)
        }
    }

    /// Takes the next item and the version the consumer had before it, or `nil` when none is queued.
    ///
    /// - Returns: `.some(nil)` when the stream is over.
    @inlinable func take() -> (item: Item, base: _VersionPoint<Entity>?)?? {
        state.withLock { state in
            if state.isCancelled { return .some(nil) }
            guard state.pendingCount > 0 else { return state.isEnded ? .some(nil) : nil }
            let item = state.queue[state.head]!
            state.queue[state.head] = nil
            state.head += 1
            if state.head == state.queue.count {
                state.queue.removeAll(keepingCapacity: true)
                state.head = 0
            }
            defer { state.taken = item.target }
            return (item, state.taken)
        }
    }

    /// Waits until an item is queued or the stream is over.
    @inlinable nonisolated(nonsending) func wait() async {
        await withTaskCancellationHandler {
            await withUnsafeContinuation { (continuation: UnsafeContinuation<Void, Never>) in
                let isReady = state.withLock { state in
                    guard state.pendingCount == 0 && !state.isEnded && !state.isCancelled else { return true }
                    state.waiter = continuation
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
