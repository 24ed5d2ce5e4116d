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
    /// Each access starts a new subscription; it ends when the sequence's iterator is released. Empty
    /// change sets are not delivered. Change sets are buffered without limit until read; see
    /// ``changes(bufferingPolicy:)`` to bound the buffer.
    ///
    /// ```swift
    /// let changes = controller.changes   // subscribed from here
    /// Task {
    ///     for await changeSet in changes { print(changeSet) }
    /// }
    /// ```
    ///
    /// - Complexity: As ``changes(bufferingPolicy:)``.
    @inlinable public var changes: AsyncStream<ChangeSet<Entity>> {
        changes(bufferingPolicy: .unbounded)
    }

    /// The change sets from now on, buffered by `bufferingPolicy` until read.
    ///
    /// A policy that drops change sets breaks the chain of change sets: after a drop, start over from
    /// ``snapshot`` rather than applying the next change set to what you have.
    ///
    /// - Complexity: O(1), plus, with a ``coalescingInterval``, the delivery of what was held: O(*k* log *n*) for the
    ///   *k* entities changed since the observers' version (O(*n*) after a fetch, a resort or a reset).
    @inlinable public func changes(
        bufferingPolicy: AsyncStream<ChangeSet<Entity>>.Continuation.BufferingPolicy
    ) -> AsyncStream<ChangeSet<Entity>> {
        let (stream, continuation) = AsyncStream.makeStream(
            of: ChangeSet<Entity>.self, bufferingPolicy: bufferingPolicy)
        let id = _state.withLock { state in
            // What coalescing held goes to the earlier observers: this one starts from the current results.
            state.flushCoalesced(at: .now)
            defer { state.nextContinuationID += 1 }
            state.continuations[state.nextContinuationID] = continuation
            return state.nextContinuationID
        }
        deliverPending()
        continuation.onTermination = { [weak self] _ in
            _ = self?._state.withLock { $0.continuations.removeValue(forKey: id) }
        }
        return stream
    }

    /// Calls `handler` with every change set delivered from now on, and the snapshot right after it,
    /// until the returned subscription is cancelled or released.
    ///
    /// Handlers run where delegate callbacks run (``callbackScheduler``), one at a time and in order,
    /// before the delegate's. Any number of them can observe one controller: the views built on a
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
        let (id, snapshot) = _state.withLock { state in
            // What coalescing held goes to the earlier observers: this one starts from the current results.
            state.flushCoalesced(at: .now)
            defer { state.nextContinuationID += 1 }
            state.observers[state.nextContinuationID] = handler
            return (state.nextContinuationID, state.visibleSnapshot)
        }
        deliverPending()
        let subscription = EventSubscription { [weak self] in
            _ = self?._state.withLock { $0.observers.removeValue(forKey: id) }
        }
        return (snapshot, subscription)
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
        var next = _state.withLock { state -> _ControllerState<Entity>.Pending? in
            if state.isCoalescing { coalescingDeadline = state.releaseCoalesced(at: .now) }
            guard !state.isDelivering, state.hasPendingDeliveries else { return nil }
            state.isDelivering = true
            return state.nextDelivery()
        }
        if let coalescingDeadline { deliverCoalesced(at: coalescingDeadline) }
        while let item = next {
            switch item {
            case .delivery(let delivery): deliver(delivery)
            case .action(let action): action()
            }
            next = _state.withLock { $0.nextDelivery() }
        }
    }

    @inlinable func deliver(_ delivery: _ControllerState<Entity>.Delivery) {
        for continuation in delivery.continuations {
            continuation.yield(delivery.changes)
        }
        if !delivery.observers.isEmpty {
            delivery.scheduler.schedule {
                for observer in delivery.observers { observer(delivery.changes, delivery.snapshot) }
            }
        }
        guard let delegate = delivery.delegate else { return }
        delivery.scheduler.schedule { [self] in
            delegate.controllerWillChangeContent(self)
            for change in delivery.changes.sectionChanges {
                delegate.controller(self, didChange: change)
            }
            for change in delivery.changes.itemChanges {
                delegate.controller(self, didChange: change)
            }
            delegate.controller(self, didChangeContentWith: delivery.changes, snapshot: delivery.snapshot)
        }
    }
}
