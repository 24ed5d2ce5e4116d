/// Everything a ``CollapsibleSections`` view guards with its lock: its display state, and its observers
/// with the change sets waiting for them.
@usableFromInline struct _CollapsibleView<Entity: FetchableEntity>: Sendable {
    /// A change set waiting for delivery, with the observers that existed when it was made.
    @usableFromInline struct Delivery: Sendable {
        @usableFromInline var changes: ChangeSet<Entity>
        @usableFromInline var delegate: (any CollapsibleSectionsDelegate<Entity>)?
        @usableFromInline var changeSubscribers: [_ChangeSubscriber<Entity>]

        @inlinable init(
            changes: ChangeSet<Entity>, delegate: (any CollapsibleSectionsDelegate<Entity>)?,
            changeSubscribers: [_ChangeSubscriber<Entity>]
        ) {
            self.changes = changes
            self.delegate = delegate
            self.changeSubscribers = changeSubscribers
        }
    }

    @usableFromInline var state: _CollapsibleState<Entity>

    @usableFromInline weak var delegate: (any CollapsibleSectionsDelegate<Entity>)?
    /// The subscriptions of ``CollapsibleSections/changes``.
    @usableFromInline var changeSubscribers: [UInt64: _ChangeSubscriber<Entity>] = [:]
    @usableFromInline var nextContinuationID: UInt64 = 0
    @usableFromInline var pending: [Delivery] = []
    @usableFromInline var pendingHead = 0
    @usableFromInline var isDelivering = false

    @inlinable init(state: _CollapsibleState<Entity>) {
        self.state = state
    }

    /// Whether anything observes the view's change sets.
    @inlinable var hasObservers: Bool { delegate != nil || !changeSubscribers.isEmpty }

    /// Queues a change set of the view for its observers, if there are any.
    ///
    /// - Returns: Whether it queued one.
    @discardableResult
    @inlinable mutating func enqueue(_ changes: ChangeSet<Entity>) -> Bool {
        guard !changes.isEmpty, hasObservers else { return false }
        pending.append(
            Delivery(
                changes: changes, delegate: delegate,
                changeSubscribers: changeSubscribers.sorted { $0.key < $1.key }.map(\.value)))
        return true
    }

    @inlinable mutating func add(_ subscriber: _ChangeSubscriber<Entity>) -> UInt64 {
        defer { nextContinuationID += 1 }
        changeSubscribers[nextContinuationID] = subscriber
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
