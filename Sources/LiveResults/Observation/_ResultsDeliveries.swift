/// The observers of derived results that change outside a controller (a ``ResultsReplica``): their
/// change sets queued in order under the owner's lock, and delivered outside it, one thread at a time, so
/// a handler may read and change the results it observes.
@usableFromInline final class _ResultsDeliveries<Entity: FetchableEntity>: Sendable {
    @usableFromInline typealias Handler = @Sendable (ChangeSet<Entity>, FetchedResultsSnapshot<Entity>) -> Void

    @usableFromInline struct State: Sendable {
        @usableFromInline var handlers: [UInt64: Handler] = [:]
        @usableFromInline var changeSubscribers: [UInt64: _ChangeSubscriber<Entity>] = [:]
        @usableFromInline var nextID: UInt64 = 0
        /// Change sets waiting for the delivering thread, with the observers of their moment.
        @usableFromInline var pending:
            [(
                changes: ChangeSet<Entity>, snapshot: FetchedResultsSnapshot<Entity>, handlers: [Handler],
                subscribers: [_ChangeSubscriber<Entity>]
            )] = []
        @usableFromInline var isDelivering = false

        @usableFromInline init() {}
    }

    @usableFromInline let state = _Lock(State())

    @inlinable init() {}

    /// Whether anything observes the results.
    @inlinable var hasObservers: Bool {
        state.withLock { !$0.handlers.isEmpty || !$0.changeSubscribers.isEmpty }
    }

    /// Queues a change set for the observers registered now; called under the owner's lock, so that change
    /// sets queue in the order they were made.
    @inlinable func enqueue(_ changes: ChangeSet<Entity>, after snapshot: FetchedResultsSnapshot<Entity>) {
        guard !changes.isEmpty else { return }
        state.withLock { state in
            guard !state.handlers.isEmpty || !state.changeSubscribers.isEmpty else { return }
            state.pending.append(
                (
                    changes, snapshot, state.handlers.sorted { $0.key < $1.key }.map(\.value),
                    state.changeSubscribers.sorted { $0.key < $1.key }.map(\.value)
                ))
        }
    }

    /// Delivers what waits, in order, unless another thread (or an outer frame of this one) delivers.
    @inlinable func deliverPending() {
        var starting = true
        while let next = state.withLock({
            state -> (ChangeSet<Entity>, FetchedResultsSnapshot<Entity>, [Handler], [_ChangeSubscriber<Entity>])? in
            if starting {
                guard !state.isDelivering else { return nil }
                state.isDelivering = true
            }
            guard !state.pending.isEmpty else {
                state.isDelivering = false
                return nil
            }
            return state.pending.removeFirst()
        }) {
            starting = false
            for subscriber in next.3 { subscriber.yield(next.0) }
            for handler in next.2 { handler(next.0, next.1) }
        }
    }

    /// Registers a handler, called with every change set queued from now on.
    ///
    /// - Returns: Its subscription.
    @inlinable func observe(_ handler: @escaping Handler) -> EventSubscription {
        let cancelled = _CancellationFlag()
        let id = state.withLock { state in
            defer { state.nextID += 1 }
            state.handlers[state.nextID] = { changes, snapshot in
                if !cancelled.isSet { handler(changes, snapshot) }
            }
            return state.nextID
        }
        return EventSubscription { [weak self] in
            cancelled.set()
            _ = self?.state.withLock { $0.handlers.removeValue(forKey: id) }
        }
    }

    /// A `changes` sequence of the change sets queued from now on.
    @inlinable func changes(bufferingPolicy: ResultsChanges<Entity>.BufferingPolicy) -> ResultsChanges<Entity> {
        let subscriber = _ChangeSubscriber<Entity>(bufferingPolicy)
        let id = state.withLock { state in
            defer { state.nextID += 1 }
            state.changeSubscribers[state.nextID] = subscriber
            return state.nextID
        }
        return ResultsChanges(
            _subscription: _ChangeSubscription(subscriber: subscriber) { [weak self] in
                _ = self?.state.withLock { $0.changeSubscribers.removeValue(forKey: id) }
            })
    }

    deinit {
        for subscriber in state.withLock({ Array($0.changeSubscribers.values) }) { subscriber.finish() }
    }
}
