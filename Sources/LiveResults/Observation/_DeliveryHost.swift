/// Live results that deliver through a ``_DeliveryEngine``: a controller (whose queue also carries its
/// windows' deliveries), a collapsible view, a replica. The engine's owner gives access to it under its lock
/// and calls its delegate; the draining, the delivery itself and the subscriptions are the engine's, here,
/// once for all of them.
@usableFromInline protocol _DeliveryHost<_Entity>: AnyObject, Sendable {
    /// The entities delivered. Underscored, as ``_Delegate``: a public conformer's member `Entity` must not
    /// resolve to this internal protocol's associated type, which made client code see an internal type.
    associatedtype _Entity: FetchableEntity
    /// The owner's delegate type (an existential), or `Never`.
    associatedtype _Delegate: Sendable

    /// Runs `body` under the owner's lock with the engine whose queue it drains.
    func _withEngine<Result>(_ body: (inout _DeliveryEngine<_Entity, _Delegate>) -> Result) -> Result

    /// Calls `delegate` with one change set and the results right after it (`nil` when it does not take them).
    func _callDelegate(
        _ delegate: _Delegate, with changes: ChangeSet<_Entity>, snapshot: FetchedResultsSnapshot<_Entity>?)
}

extension _DeliveryHost {
    /// Delivers what the engine queued, in order, unless another thread (or an outer frame of this one,
    /// when a callback changed the results) is already delivering: that one takes it next. This keeps the
    /// order without holding the lock while user code runs.
    @inlinable func _deliverQueued() {
        if let first = _withEngine({ $0.startDelivering() }) { _deliverPending(startingWith: first) }
    }

    /// Delivers `first`, which ``_DeliveryEngine/startDelivering()`` took, then whatever was queued
    /// behind it, and ends the delivering turn.
    @inlinable func _deliverPending(startingWith first: _DeliveryEngine<_Entity, _Delegate>.Pending) {
        var next: _DeliveryEngine<_Entity, _Delegate>.Pending? = first
        while let item = next {
            switch item {
            case .delivery(let record):
                _deliver(record)
                // The record's memory serves the next delivery.
                next = _withEngine { engine in
                    engine.recycle(record)
                    return engine.nextDelivery()
                }
            case .action(let action):
                action()
                next = _withEngine { $0.nextDelivery() }
            }
        }
    }

    /// Delivers one change set, taking it out of its record (whose memory the caller then reuses or frees):
    /// to the `changes` sequences at once, to the handlers and the delegate where the scheduler says. With
    /// the immediate scheduler, nothing is allocated for it, and nothing of it is copied.
    @inlinable func _deliver(_ record: _DeliveryEngine<_Entity, _Delegate>.DeliveryRecord) {
        if record.isForChangeSubscribersOnly {
            // The last `changes` sequence takes the delivery's change set itself, not a copy.
            let (changes, subscribers) = record.takeChanges()
            return _yield(changes, to: subscribers)
        }
        let delivery = record.take()
        for subscriber in delivery.changeSubscribers {
            subscriber.yield(delivery.changes)
        }
        if case .immediate = delivery.scheduler.kind {
            _call(delivery)
        } else {
            delivery.scheduler.schedule { [self] in _call(delivery) }
        }
    }

    /// Delivers change sets made outside the queue (a window's, queued as an action) the same way.
    @inlinable func _deliver(_ deliveries: [_DeliveryEngine<_Entity, _Delegate>.Delivery]) {
        var spare: _DeliveryEngine<_Entity, _Delegate>.DeliveryRecord?
        for delivery in deliveries {
            let record = _DeliveryEngine<_Entity, _Delegate>.DeliveryRecord(delivery, reusing: &spare)
            _deliver(record)
            spare = record
        }
        spare?.free()
    }

    /// Hands `changes` to each of `subscribers`, moving it into the last one.
    @inlinable func _yield(_ changes: consuming ChangeSet<_Entity>, to subscribers: [_ChangeSubscriber<_Entity>]) {
        guard let last = subscribers.last else { return }
        for subscriber in subscribers.dropLast() {
            subscriber.yield(copy changes)
        }
        last.yield(changes)
    }

    /// Calls the handlers, then the delegate, with one change set.
    @inlinable func _call(_ delivery: _DeliveryEngine<_Entity, _Delegate>.Delivery) {
        // The delivery's fields are read where they are used: a local copy would retain each array.
        for observer in delivery.observers {
            observer(delivery.changes, delivery.snapshot.unsafelyUnwrapped, delivery.version)
        }
        guard let delegate = delivery.delegate else { return }
        _callDelegate(delegate, with: delivery.changes, snapshot: delivery.snapshot)
    }
}

extension _DeliveryEngine.Subscribers {
    /// A `changes` sequence registered with `register` (which returns its id, or `nil` when the results are
    /// closed: the sequence is then finished) and unregistered with `unregister` when it ends.
    ///
    /// - Complexity: O(*s* log *s*) for *s* subscriptions, to list them in order.
    @inlinable static func changes(
        bufferingPolicy: ResultsChanges<Entity>.BufferingPolicy,
        register: (_ChangeSubscriber<Entity>) -> UInt64?,
        unregister: @escaping @Sendable (UInt64) -> Void
    ) -> ResultsChanges<Entity> {
        let subscriber = _ChangeSubscriber<Entity>(bufferingPolicy)
        let id = register(subscriber)
        if id == nil { subscriber.finish() }
        return ResultsChanges(
            _subscription: _ChangeSubscription(subscriber: subscriber) {
                if let id { unregister(id) }
            })
    }

    /// A handler registered with `register` (which adds it, wrapped so that it is not called once
    /// cancelled, and returns its id, or `nil` when the results are closed, with whatever it read) and
    /// unregistered with `unregister` when its subscription is cancelled.
    ///
    /// - Complexity: O(*s* log *s*) for *s* handlers, to list them in order.
    @inlinable static func observe<Read>(
        _ handler: @escaping _DeliveryEngine.Observer,
        register: (_ add: (inout Self) -> UInt64) -> (id: UInt64?, read: Read),
        unregister: @escaping @Sendable (UInt64) -> Void
    ) -> (read: Read, subscription: EventSubscription) {
        let cancelled = _CancellationFlag()
        let (id, read) = register { subscribers in subscribers.add(handler, cancelled: cancelled) }
        let subscription = EventSubscription {
            cancelled.set()
            if let id { unregister(id) }
        }
        return (read, subscription)
    }
}
