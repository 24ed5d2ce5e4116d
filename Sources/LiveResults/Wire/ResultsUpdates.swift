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
                case .some(.some(let next)):
                    // `nil` only when the controller is gone before a catch-up was read: the stream is over.
                    return _subscription.update(next.item, after: next.base)
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
    /// A catch-up from a version (`nil`: the whole results) to the one the observers have, worked out
    /// under the controller's lock, which also settles the stream at that version
    /// (``_UpdateSubscriber/settle(at:)``); `nil` when the controller is gone.
    @usableFromInline typealias Resolve = @Sendable (UInt64?) -> _CatchUp<Entity>?

    @usableFromInline let subscriber: _UpdateSubscriber<Entity>
    @usableFromInline let origin: UInt64
    @usableFromInline let unsubscribe: @Sendable () -> Void
    @usableFromInline let resolve: Resolve
    /// Names a version of the stream, when its versions are not ``origin``'s numbers (a window's versions
    /// named by its contents); `nil` from it, too, names it by number.
    @usableFromInline let name: (@Sendable (UInt64) -> ResultsVersion?)?

    @inlinable init(
        subscriber: _UpdateSubscriber<Entity>, origin: UInt64,
        name: (@Sendable (UInt64) -> ResultsVersion?)? = nil,
        unsubscribe: @escaping @Sendable () -> Void, resolve: @escaping Resolve
    ) {
        self.subscriber = subscriber
        self.origin = origin
        self.name = name
        self.unsubscribe = unsubscribe
        self.resolve = resolve
    }

    deinit {
        unsubscribe()
    }

    /// The update that an item of the stream stands for, after version `base`; `nil` for a catch-up
    /// when the controller is gone.
    ///
    /// - Complexity: O(*k* log *n*) for a catch-up of *k* changes (O(*n*) across a rebuild); O(*k*) for a
    ///   delivered change set; O(*n*) for the whole results.
    @inlinable func update(_ item: _UpdateSubscriber<Entity>.Item, after base: UInt64?) -> ResultsUpdate<Entity>? {
        func version(_ sequence: UInt64) -> ResultsVersion {
            name?(sequence) ?? ResultsVersion(origin: origin, sequence: sequence)
        }
        switch item {
        case .whole(let results):
            return ResultsUpdate(version: version(results.sequence), wholeResultsOf: results.storage)
        case .changes(let delivered):
            let names = delivered.names ?? (version(delivered.sequence), version(delivered.sequence - 1))
            return ResultsUpdate(
                version: names.version, base: names.base, changes: delivered.changes, inserted: delivered.inserted,
                updated: delivered.updated)
        case .catchUp(let from):
            guard let catchUp = resolve(from) else { return nil }
            guard let earlier = catchUp.earlier else {
                return ResultsUpdate(version: version(catchUp.sequence), wholeResultsOf: catchUp.now)
            }
            let changes = _VersionDiff.changeSet(from: earlier, to: catchUp.now, isRebuilt: catchUp.isRebuilt)
            return ResultsUpdate(
                version: version(catchUp.sequence), base: version(from!), changes: changes, after: catchUp.now)
        }
    }
}

/// The two results of a catch-up, worked out under the controller's lock; their change set is computed
/// outside it.
@usableFromInline struct _CatchUp<Entity: FetchableEntity>: Sendable {
    /// The results of the version caught up from; `nil` for the whole results.
    @usableFromInline let earlier: _SectionedStorage<Entity>?
    /// The results the observers have, and their version.
    @usableFromInline let now: _SectionedStorage<Entity>
    @usableFromInline let sequence: UInt64
    /// Whether a rebuild lies between the two.
    @usableFromInline let isRebuilt: Bool

    @inlinable init(
        earlier: _SectionedStorage<Entity>?, now: _SectionedStorage<Entity>, sequence: UInt64, isRebuilt: Bool
    ) {
        self.earlier = earlier
        self.now = now
        self.sequence = sequence
        self.isRebuilt = isRebuilt
    }
}
