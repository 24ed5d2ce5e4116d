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
            commit { state, _ in
                state.flushCoalesced()
                state.delegate = newValue
            }
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
        let changes = _ControllerState<Entity>.Engine.Subscribers.changes(bufferingPolicy: bufferingPolicy) {
            subscriber in
            _state.withLock { state in
                // What coalescing held goes to the earlier observers: this one starts from the current results.
                state.flushCoalesced()
                return state.engine.subscribers.add(subscriber)
            }
        } unregister: { [weak self] id in
            // Released after the lock (see `remove`).
            _ = self?._state.withLock { $0.engine.subscribers.remove(subscriber: id) }
        }
        deliverPending()
        return changes
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
        let (read, subscription) = _ControllerState<Entity>.Engine.Subscribers.observe(handler) { add in
            _state.withLock { state in
                // What coalescing held goes to the earlier observers: this one starts from the current results.
                state.flushCoalesced()
                return (add(&state.engine.subscribers), (state.visibleSnapshot, state.observedVersion))
            }
        } unregister: { [weak self] id in
            // Released after the lock (see `remove`).
            _ = self?._state.withLock { $0.engine.subscribers.remove(observer: id) }
        }
        deliverPending()
        return (read.0, read.1, subscription)
    }

    /// What the observers have now, read at one moment: the results of the last change set queued for
    /// them (while paused, the frozen ones) with its version, and the state around them.
    @inlinable func _observedResults() -> (
        snapshot: FetchedResultsSnapshot<Entity>, version: UInt64, state: FetchState, origin: ResultsOrigin,
        isPaused: Bool
    ) {
        _state.withLock { state in
            (
                FetchedResultsSnapshot(_storage: state.observedStorage), state.observedVersion,
                state.fetchCycle.fetchState,
                state.fetchCycle.origin, state.paused != nil
            )
        }
    }

    /// Registers `observer` to see each change set as it is queued for the observers, under the lock,
    /// until the returned subscription is cancelled or released. The observer must not call back into
    /// the controller.
    @inlinable func _addQueueObserver(_ observer: @escaping _ControllerState<Entity>.QueueObserver) -> EventSubscription
    {
        let id = commit { state, _ in
            state.flushCoalesced()
            defer { state.nextQueueObserverID += 1 }
            state.queueObservers[state.nextQueueObserverID] = observer
            return state.nextQueueObserverID
        }
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
        commit { _, _ in }
    }
}

/// The controller delivers through its engine, in `_ControllerState`; its windows' deliveries go through the
/// same queue.
extension FetchedResultsController: _DeliveryHost {
    @inlinable func _withEngine<Result>(
        _ body: (inout _DeliveryEngine<Entity, any FetchedResultsControllerDelegate<Entity>>) -> Result
    ) -> Result {
        _state.withLock { body(&$0.engine) }
    }

    /// Calls the delegate with one change set: its per-change callbacks straight from the change set's
    /// arrays, with no list of changes built for them.
    @inlinable func _callDelegate(
        _ delegate: any FetchedResultsControllerDelegate<Entity>, with changes: ChangeSet<Entity>,
        snapshot: FetchedResultsSnapshot<Entity>?
    ) {
        delegate.controllerWillChangeContent(self)
        for (index, name) in zip(changes.deletedSections, changes.deletedSectionNames) {
            delegate.controller(self, didChange: SectionChange(kind: .delete(index), name: name))
        }
        for (index, name) in zip(changes.insertedSections, changes.insertedSectionNames) {
            delegate.controller(self, didChange: SectionChange(kind: .insert(index), name: name))
        }
        for (index, name) in zip(changes.updatedSections, changes.updatedSectionNames) {
            delegate.controller(self, didChange: SectionChange(kind: .update(index), name: name))
        }
        for (indexPath, id) in zip(changes.deletedItems, changes.deletedItemIDs) {
            delegate.controller(self, didChange: ItemChange(kind: .delete(indexPath), id: id))
        }
        for (indexPath, id) in zip(changes.insertedItems, changes.insertedItemIDs) {
            delegate.controller(self, didChange: ItemChange(kind: .insert(indexPath), id: id))
        }
        for (move, id) in zip(changes.movedItems, changes.movedItemIDs) {
            delegate.controller(self, didChange: ItemChange(kind: .move(from: move.from, to: move.to), id: id))
        }
        for (indexPath, id) in zip(changes.updatedItems, changes.updatedItemIDs) {
            delegate.controller(self, didChange: ItemChange(kind: .update(indexPath), id: id))
        }
        delegate.controller(self, didChangeContentWith: changes, snapshot: snapshot.unsafelyUnwrapped)
    }
}
