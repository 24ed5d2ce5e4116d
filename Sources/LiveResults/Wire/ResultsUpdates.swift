/// The updates of a controller's results: the whole results (or a catch-up) first, then one update per
/// change set delivered to the observers. Made by ``FetchedResultsController/updates(since:bufferLimit:)``.
///
/// The stream's iterator owns its subscription: the stream ends for the controller when the sequence
/// and its iterator are released, and for the consumer when its task is cancelled (`next()` returns
/// `nil`) or the controller is released (after what was queued). Iterate it once, from one task.
public struct ResultsUpdates<Entity: FetchableEntity & Codable>: AsyncSequence, Sendable {
    /// An update.
    public typealias Element = ResultsUpdate<Entity>
    /// The stream never throws.
    public typealias Failure = Never

    @usableFromInline let _subscription: _UpdateSubscription<Entity>

    @inlinable init(_subscription: _UpdateSubscription<Entity>) {
        self._subscription = _subscription
    }

    /// Makes the stream's iterator.
    ///
    /// - Complexity: O(1).
    @inlinable public func makeAsyncIterator() -> Iterator {
        Iterator(_subscription: _subscription)
    }

    /// Reads the updates in order.
    ///
    /// `Sendable`, and `next()` does not mutate it: a `let` iterator reads too, from any context.
    public struct Iterator: AsyncIteratorProtocol, Sendable {
        @usableFromInline let _subscription: _UpdateSubscription<Entity>

        @inlinable init(_subscription: _UpdateSubscription<Entity>) {
            self._subscription = _subscription
        }

        /// The next update, waiting for it; `nil` when the stream is over.
        ///
        /// It runs on the caller's executor: reading an update that is already queued does not hop to
        /// another thread and back.
        ///
        /// - Complexity: O(*k* log *n*) for an update of *k* changes, including a catch-up; O(*n*) for the
        ///   whole results, or a catch-up across a refetch, a resort or a reset.
        @inlinable nonisolated(nonsending) public func next() async -> ResultsUpdate<Entity>? {
            let subscriber = _subscription.subscriber
            while true {
                switch subscriber.take() {
                case .some(.some(let next)): return _subscription.update(next.item, after: next.base)
                case .some(.none): return nil
                case .none: await subscriber.wait()
                }
            }
        }

        /// The next update, waiting for it on `actor`; `nil` when the stream is over. `for await` loops
        /// call it, so that they read on their own executor.
        ///
        /// - Complexity: As ``next()``.
        @inlinable public func next(isolation actor: isolated (any Actor)?) async -> ResultsUpdate<Entity>? {
            await next()
        }
    }
}

/// Keeps an update stream registered with its controller while the sequence or its iterator exists.
@usableFromInline final class _UpdateSubscription<Entity: FetchableEntity & Codable>: Sendable {
    @usableFromInline let subscriber: _UpdateSubscriber<Entity>
    @usableFromInline let origin: UInt64
    @usableFromInline let unsubscribe: @Sendable () -> Void

    @inlinable init(subscriber: _UpdateSubscriber<Entity>, origin: UInt64, unsubscribe: @escaping @Sendable () -> Void)
    {
        self.subscriber = subscriber
        self.origin = origin
        self.unsubscribe = unsubscribe
    }

    deinit {
        unsubscribe()
    }

    /// The update that an item of the stream stands for.
    @inlinable func update(_ item: _UpdateSubscriber<Entity>.Item, after base: _VersionPoint<Entity>?) -> ResultsUpdate<
        Entity
    > {
        func version(_ point: _VersionPoint<Entity>) -> ResultsVersion {
            ResultsVersion(origin: origin, sequence: point.sequence)
        }
        switch item {
        case .whole(let point):
            return ResultsUpdate(version: version(point), wholeResultsOf: point.storage)
        case .changes(let changes, let point):
            return ResultsUpdate(version: version(point), base: version(base!), changes: changes, after: point.storage)
        case .catchUp(let from, let to):
            return ResultsUpdate(
                version: version(to), base: version(from), changes: from.changeSet(to: to), after: to.storage)
        }
    }
}
