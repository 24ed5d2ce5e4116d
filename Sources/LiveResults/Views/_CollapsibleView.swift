/// Everything a ``CollapsibleSections`` view guards with its lock: its display state, and its observers
/// with the change sets waiting for them.
@usableFromInline struct _CollapsibleView<Entity: FetchableEntity>: Sendable {
    /// A handler of ``CollapsibleSections/observeChanges(_:)``.
    @usableFromInline typealias Handler = @Sendable (ChangeSet<Entity>, FetchedResultsSnapshot<Entity>) -> Void

    /// A change set waiting for delivery, with the observers that existed when it was made.
    @usableFromInline struct Delivery: Sendable {
        // `let`: with `var` fields, the compiler made each delivery in a temporary, copied it into its slot
        // and destroyed the temporary.
        @usableFromInline let changes: ChangeSet<Entity>
        @usableFromInline let delegate: (any CollapsibleSectionsDelegate<Entity>)?
        @usableFromInline let changeSubscribers: [_ChangeSubscriber<Entity>]
        /// The handlers of ``CollapsibleSections/observeChanges(_:)`` and the display right after the change
        /// set, in one object: `nil`, with nothing to destroy, in the common case of no handler.
        @usableFromInline let observed: _ObservedDisplay<Entity>?

        @inlinable init(
            changes: __owned ChangeSet<Entity>, delegate: (any CollapsibleSectionsDelegate<Entity>)?,
            changeSubscribers: [_ChangeSubscriber<Entity>], observed: _ObservedDisplay<Entity>?
        ) {
            self.changes = changes
            self.delegate = delegate
            self.changeSubscribers = changeSubscribers
            self.observed = observed
        }
    }

    @usableFromInline var state: _CollapsibleState<Entity>

    @usableFromInline weak var delegate: (any CollapsibleSectionsDelegate<Entity>)?
    /// The subscriptions of ``CollapsibleSections/changes``.
    @usableFromInline var changeSubscribers: [UInt64: _ChangeSubscriber<Entity>] = [:] {
        didSet { changeSubscriberList = changeSubscribers.sorted { $0.key < $1.key }.map(\.value) }
    }
    /// `changeSubscribers` in the order they subscribed: the array each delivery shares (rebuilt only when a
    /// subscription comes or goes, not per change set).
    @usableFromInline var changeSubscriberList: [_ChangeSubscriber<Entity>] = []
    /// The handlers of ``CollapsibleSections/observeChanges(_:)``, and the array each delivery shares.
    @usableFromInline var observers: [UInt64: Handler] = [:] {
        didSet { observerList = observers.sorted { $0.key < $1.key }.map(\.value) }
    }
    @usableFromInline var observerList: [Handler] = []
    @usableFromInline var nextContinuationID: UInt64 = 0
    /// Change sets waiting for the delivering thread, in `pending[pendingHead..<pendingEnd]`. Taken by
    /// moving them out of their slots, which are reused once the queue is drained (as the controller's
    /// queue does): no copy of a delivery, and no emptying of the array per change set.
    @usableFromInline var pending: [Delivery?] = []
    @usableFromInline var pendingHead = 0
    @usableFromInline var pendingEnd = 0
    @usableFromInline var isDelivering = false

    @inlinable init(state: _CollapsibleState<Entity>) {
        self.state = state
    }

    /// Whether anything observes the view's change sets.
    @inlinable var hasObservers: Bool { !changeSubscriberList.isEmpty || delegate != nil || !observerList.isEmpty }

    /// Queues a change set of the view for its observers, if there are any.
    ///
    /// - Parameter storage: The controller's results after the change set, which the view displays.
    /// - Returns: Whether it queued one.
    @discardableResult
    @inlinable mutating func enqueue(
        _ changes: consuming ChangeSet<Entity>, after storage: _SectionedStorage<Entity>
    ) -> Bool {
        guard !changes.isEmpty else { return false }
        let delegate = delegate
        guard delegate != nil || !changeSubscriberList.isEmpty || !observerList.isEmpty else { return false }
        let observed = observerList.isEmpty ? nil : _ObservedDisplay(observerList, display(of: storage))
        // Made in its slot: a delivery made first and then stored was copied and destroyed (outlined, merged
        // value witnesses, a few hundred instructions each).
        if pendingEnd < pending.count {
            pending[pendingEnd] = Delivery(
                changes: consume changes, delegate: delegate, changeSubscribers: changeSubscriberList,
                observed: observed)
        } else {
            pending.append(
                Delivery(
                    changes: consume changes, delegate: delegate, changeSubscribers: changeSubscriberList,
                    observed: observed))
        }
        pendingEnd += 1
        return true
    }

    /// The display of `storage`: every section, each with the items it shows.
    ///
    /// - Complexity: O(*s* log *n*) for *s* sections.
    @inlinable mutating func display(of storage: _SectionedStorage<Entity>) -> FetchedResultsSnapshot<Entity> {
        let counts = (0..<storage.sections.count).map { state.displayedCount(ofSection: $0, in: storage) }
        return FetchedResultsSnapshot(_storage: storage, _displayed: _DisplayedItems(counts))
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
        guard pendingHead < pendingEnd else {
            isDelivering = false
            // Every slot was taken: they are reused from the start.
            (pendingHead, pendingEnd) = (0, 0)
            if pending.count > 1024 { pending = [] }
            return nil
        }
        defer { pendingHead += 1 }
        return pending[pendingHead].take()
    }
}

/// The handlers of a collapsible view's change set, with the display they receive.
@usableFromInline final class _ObservedDisplay<Entity: FetchableEntity>: Sendable {
    @usableFromInline let handlers: [_CollapsibleView<Entity>.Handler]
    @usableFromInline let snapshot: FetchedResultsSnapshot<Entity>

    @inlinable init(_ handlers: [_CollapsibleView<Entity>.Handler], _ snapshot: FetchedResultsSnapshot<Entity>) {
        self.handlers = handlers
        self.snapshot = snapshot
    }
}
