/// Everything a ``CollapsibleSections`` view guards with its lock: its display state, and its observers
/// with the change sets waiting for them.
@usableFromInline struct _CollapsibleView<Entity: FetchableEntity>: Sendable {
    @usableFromInline typealias Continuation = AsyncStream<ChangeSet<Entity>>.Continuation

    /// A change set waiting for delivery, with the observers that existed when it was made.
    @usableFromInline struct Delivery: Sendable {
        @usableFromInline var changes: ChangeSet<Entity>
        @usableFromInline var delegate: (any CollapsibleSectionsDelegate<Entity>)?
        @usableFromInline var continuations: [Continuation]

        @inlinable init(
            changes: ChangeSet<Entity>, delegate: (any CollapsibleSectionsDelegate<Entity>)?,
            continuations: [Continuation]
        ) {
            self.changes = changes
            self.delegate = delegate
            self.continuations = continuations
        }
    }

    @usableFromInline var state: _CollapsibleState<Entity>

    @usableFromInline weak var delegate: (any CollapsibleSectionsDelegate<Entity>)?
    @usableFromInline var continuations: [UInt64: Continuation] = [:]
    @usableFromInline var nextContinuationID: UInt64 = 0
    @usableFromInline var pending: [Delivery] = []
    @usableFromInline var pendingHead = 0
    @usableFromInline var isDelivering = false

    @inlinable init(state: _CollapsibleState<Entity>) {
        self.state = state
    }

    /// Whether anything observes the view's change sets.
    @inlinable var hasObservers: Bool { delegate != nil || !continuations.isEmpty }

    /// Queues a change set of the view for its observers, if there are any.
    ///
    /// - Returns: Whether it queued one.
    @discardableResult
    @inlinable mutating func enqueue(_ changes: ChangeSet<Entity>) -> Bool {
        guard !changes.isEmpty, hasObservers else { return false }
        pending.append(Delivery(changes: changes, delegate: delegate, continuations: Array(continuations.values)))
        return true
    }

    @inlinable mutating func add(_ continuation: Continuation) -> UInt64 {
        defer { nextContinuationID += 1 }
        continuations[nextContinuationID] = continuation
        return nextContinuationID
    }

    /// The next change set to deliver, or `nil` when there is none or another thread delivers.
    @inlinable mutating func nextDelivery(starting: Bool) -> Delivery? {
        if starting {
            guard !isDelivering else { return nil }
            isDelivering = true
        }
        guard pendingHead < pending.count else {
            isDelivering = false
            pending.removeAll(keepingCapacity: true)
            pendingHead = 0
            return nil
        }
        defer { pendingHead += 1 }
        return pending[pendingHead]
    }
}
