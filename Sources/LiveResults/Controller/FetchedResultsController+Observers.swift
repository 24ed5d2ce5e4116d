extension FetchedResultsController {
    /// The object that receives every change set through callbacks. Held weakly.
    ///
    /// With a ``coalescingInterval``, setting it first delivers what coalescing held to the delegate
    /// before, so that the new one's first change set starts from the current results.
    ///
    /// - Complexity: O(1), plus, with a ``coalescingInterval``, setting it delivers what was held: O(*k* log *n*) for
    ///   the *k* entities changed since the observers' version (O(*n*) after a fetch, a resort or a reset).
    @inlinable public var delegate: (any FetchedResultsControllerDelegate<Entity>)? {
        get { _state.withLock { $0.delegate } }
        set {
            _state.withLock { state in
                state.flushCoalesced(at: .now)
                state.delegate = newValue
            }
            deliverPending()
        }
    }

    /// Where delegate callbacks run: ``CallbackScheduler/immediate`` by default.
    @inlinable public var callbackScheduler: CallbackScheduler {
        get { _state.withLock { $0.callbackScheduler } }
        set { _state.withLock { $0.callbackScheduler = newValue } }
    }

    /// The change sets from now on, each exactly once, in the order the mutations happened.
    ///
    /// Each access starts a new subscription; it ends when the sequence and its iterators are released.
    /// Empty change sets are not delivered. Change sets are buffered without limit until read; see
    /// ``changes(bufferingPolicy:)`` to bound the buffer. The sequence finishes when the controller is
    /// released (after what it buffered) or when the task reading it is cancelled.
    ///
    /// ```swift
    /// let changes = controller.changes   // subscribed from here
    /// Task {
    ///     for await changeSet in changes { print(changeSet) }
    /// }
    /// ```
    ///
    /// - Complexity: As ``changes(bufferingPolicy:)``.
    @inlinable public var changes: ResultsChanges<Entity> {
        changes(bufferingPolicy: .unbounded)
    }

    /// The change sets from now on, buffered by `bufferingPolicy` until read.
    ///
    /// A policy that drops change sets breaks the chain of change sets: after a drop, start over from
    /// ``snapshot`` rather than applying the next change set to what you have.
    ///
    /// - Complexity: O(1), plus, with a ``coalescingInterval``, the delivery of what was held: O(*k* log *n*) for the
    ///   *k* entities changed since the observers' version (O(*n*) after a fetch, a resort or a reset).
    ///   Each change set delivered then costs the subscription O(1).
    @inlinable public func changes(
        bufferingPolicy: ResultsChanges<Entity>.BufferingPolicy
    ) -> ResultsChanges<Entity> {
        let subscriber = _ChangeSubscriber<Entity>(bufferingPolicy)
        let id = _state.withLock { state in
            // What coalescing held goes to the earlier observers: this one starts from the current results.
            state.flushCoalesced(at: .now)
            defer { state.nextContinuationID += 1 }
            state.changeSubscribers[state.nextContinuationID] = subscriber
            return state.nextContinuationID
        }
        deliverPending()
        return ResultsChanges(
            _subscription: _ChangeSubscription(subscriber: subscriber) { [weak self] in
                _ = self?._state.withLock { $0.changeSubscribers.removeValue(forKey: id) }
            })
    }

    /// Calls `handler` with every change set delivered from now on, and the snapshot right after it,
    /// until the returned subscription is cancelled or released.
    ///
    /// Handlers run where delegate callbacks run (``callbackScheduler``), one at a time and in order,
    /// before the delegate's. A handler may read the controller, change it, and cancel its own or
    /// another's subscription; once cancelled, a handler is not called again, not even with change sets
    /// queued before. Any number of them can observe one controller: the views built on a
    /// controller (``CollapsibleSections``, ``ObservableResults``) use this, and leave the delegate to you.
    ///
    /// ```swift
    /// let (start, subscription) = controller.observeChanges { changes, snapshot in
    ///     render(snapshot, changes)
    /// }
    /// render(start, nil)    // the results the first change set applies to
    /// ```
    ///
    /// - Returns: The snapshot that the first change set the handler receives turns into the next one
    ///   (while paused, the frozen one), and the subscription.
    /// - Complexity: O(1), plus, with a ``coalescingInterval``, the delivery of what was held: O(*k* log *n*) for the
    ///   *k* entities changed since the observers' version (O(*n*) after a fetch, a resort or a reset).
    @inlinable public func observeChanges(
        _ handler: @escaping @Sendable (ChangeSet<Entity>, FetchedResultsSnapshot<Entity>) -> Void
    ) -> (snapshot: FetchedResultsSnapshot<Entity>, subscription: EventSubscription) {
        let (snapshot, _, subscription) = _observeChanges { changes, snapshot, _ in handler(changes, snapshot) }
        return (snapshot, subscription)
    }

    /// ``observeChanges(_:)`` with the version each change set leads to (see
    /// ``_ControllerState/observedVersion``).
    ///
    /// - Returns: The snapshot the first change set the handler receives applies to, its version, and
    ///   the subscription.
    @inlinable func _observeChanges(
        _ handler: @escaping _ControllerState<Entity>.ChangeObserver
    ) -> (snapshot: FetchedResultsSnapshot<Entity>, version: UInt64, subscription: EventSubscription) {
        let cancelled = _CancellationFlag()
        let (id, snapshot, version) = _state.withLock { state in
            // What coalescing held goes to the earlier observers: this one starts from the current results.
            state.flushCoalesced(at: .now)
            defer { state.nextContinuationID += 1 }
            state.observers[state.nextContinuationID] = { changes, snapshot, version in
                if !cancelled.isSet { handler(changes, snapshot, version) }
            }
            return (state.nextContinuationID, state.visibleSnapshot, state.observedVersion)
        }
        deliverPending()
        let subscription = EventSubscription { [weak self] in
            cancelled.set()
            _ = self?._state.withLock { $0.observers.removeValue(forKey: id) }
        }
        return (snapshot, version, subscription)
    }

    /// What the observers have now, read at one moment: the results of the last change set queued for
    /// them (while paused, the frozen ones) with its version, and the state around them.
    @inlinable func _observedResults() -> (
        snapshot: FetchedResultsSnapshot<Entity>, version: UInt64, state: FetchState, origin: ResultsOrigin,
        isPaused: Bool
    ) {
        _state.withLock { state in
            (
                FetchedResultsSnapshot(_storage: state.observedStorage), state.observedVersion, state.fetchState,
                state.resultsOrigin, state.paused != nil
            )
        }
    }

    /// Registers `observer` to see each change set as it is queued for the observers, under the lock,
    /// until the returned subscription is cancelled or released. The observer must not call back into
    /// the controller.
    @inlinable func _addQueueObserver(_ observer: @escaping _ControllerState<Entity>.QueueObserver) -> EventSubscription
    {
        let id = _state.withLock { state in
            state.flushCoalesced(at: .now)
            defer { state.nextContinuationID += 1 }
            state.queueObservers[state.nextContinuationID] = observer
            return state.nextContinuationID
        }
        deliverPending()
        return EventSubscription { [weak self] in
            _ = self?._state.withLock { $0.queueObservers.removeValue(forKey: id) }
        }
    }

    /// Runs `body` under the lock with the results the observers have.
    @inlinable func _withObservedStorage<Result>(_ body: (_SectionedStorage<Entity>) -> Result) -> Result {
        _state.withLock { body($0.observedStorage) }
    }

    /// Delivers queued change sets in order, unless another thread (or an outer frame of this one,
    /// when a callback changed the controller) is already delivering: that one takes them next. This
    /// keeps the order without holding the lock while user code runs.
    @inlinable func deliverPending() {
        var coalescingDeadline: ContinuousClock.Instant?
        let first = _state.withLock { state -> _ControllerState<Entity>.Pending? in
            if state.isCoalescing { coalescingDeadline = state.releaseCoalesced(at: .now) }
            return state.startDelivering()
        }
        if let coalescingDeadline { deliverCoalesced(at: coalescingDeadline) }
        if let first { deliverPending(startingWith: first) }
    }

    /// Delivers `first`, which ``_ControllerState/startDelivering()`` took, then whatever was queued
    /// behind it, and ends the delivering turn.
    @inlinable func deliverPending(startingWith first: _ControllerState<Entity>.Pending) {
        var next: _ControllerState<Entity>.Pending? = first
        while let item = next {
            switch item {
            case .delivery(let record):
                deliver(record)
                // The record's memory serves the next delivery.
                next = _state.withLock { state in
                    state.recycle(record)
                    return state.nextDelivery()
                }
            case .action(let action):
                action()
                next = _state.withLock { $0.nextDelivery() }
            }
        }
    }

    /// Delivers one change set, taking it out of its record (whose memory the caller then reuses or frees):
    /// to the `changes` sequences at once, to the handlers and the delegate
    /// where the scheduler says. With the immediate scheduler, nothing is allocated for it, and nothing
    /// of it is copied.
    @inlinable func deliver(_ record: _ControllerState<Entity>.DeliveryRecord) {
        if record.isForChangeSubscribersOnly {
            // The last `changes` sequence takes the delivery's change set itself, not a copy.
            let (changes, subscribers) = record.takeChanges()
            return yield(changes, to: subscribers)
        }
        let delivery = record.take()
        for subscriber in delivery.changeSubscribers {
            subscriber.yield(delivery.changes)
        }
        if case .immediate = delivery.scheduler.kind {
            call(delivery)
        } else {
            delivery.scheduler.schedule { [self] in call(delivery) }
        }
    }

    /// Hands `changes` to each of `subscribers`, moving it into the last one.
    @inlinable func yield(_ changes: consuming ChangeSet<Entity>, to subscribers: [_ChangeSubscriber<Entity>]) {
        guard let last = subscribers.last else { return }
        for subscriber in subscribers.dropLast() {
            subscriber.yield(copy changes)
        }
        last.yield(changes)
    }

    /// Calls the handlers, then the delegate, with one change set: the delegate's per-change callbacks
    /// straight from the change set's arrays, with no list of changes built for them.
    @inlinable func call(_ delivery: _ControllerState<Entity>.Delivery) {
        // The delivery's fields are read where they are used: a local copy would retain each array.
        for observer in delivery.observers {
            observer(delivery.changes, delivery.snapshot.unsafelyUnwrapped, delivery.version)
        }
        guard let delegate = delivery.delegate else { return }
        delegate.controllerWillChangeContent(self)
        for (index, name) in zip(delivery.changes.deletedSections, delivery.changes.deletedSectionNames) {
            delegate.controller(self, didChange: SectionChange(kind: .delete(index), name: name))
        }
        for (index, name) in zip(delivery.changes.insertedSections, delivery.changes.insertedSectionNames) {
            delegate.controller(self, didChange: SectionChange(kind: .insert(index), name: name))
        }
        for (index, name) in zip(delivery.changes.updatedSections, delivery.changes.updatedSectionNames) {
            delegate.controller(self, didChange: SectionChange(kind: .update(index), name: name))
        }
        for (indexPath, id) in zip(delivery.changes.deletedItems, delivery.changes.deletedItemIDs) {
            delegate.controller(self, didChange: ItemChange(kind: .delete(indexPath), id: id))
        }
        for (indexPath, id) in zip(delivery.changes.insertedItems, delivery.changes.insertedItemIDs) {
            delegate.controller(self, didChange: ItemChange(kind: .insert(indexPath), id: id))
        }
        for (move, id) in zip(delivery.changes.movedItems, delivery.changes.movedItemIDs) {
            delegate.controller(self, didChange: ItemChange(kind: .move(from: move.from, to: move.to), id: id))
        }
        for (indexPath, id) in zip(delivery.changes.updatedItems, delivery.changes.updatedItemIDs) {
            delegate.controller(self, didChange: ItemChange(kind: .update(indexPath), id: id))
        }
        delegate.controller(
            self, didChangeContentWith: delivery.changes, snapshot: delivery.snapshot.unsafelyUnwrapped)
    }
}
