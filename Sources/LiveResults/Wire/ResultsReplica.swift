import Foundation

/// A copy of a controller's results kept elsewhere (another process, a client), that follows the
/// controller by applying its ``ResultsUpdate``s.
///
/// A replica needs neither the controller's sort nor its sections' key: updates place entities by
/// position. It stores its results as a controller does, so applying one update costs
/// O(*k* log *n*) for *k* changes, and reading it costs what reading a controller costs.
///
/// ```swift
/// let replica = ResultsReplica<Todo>()
/// for try await data in socket {
///     let update = try JSONDecoder().decode(ResultsUpdate<Todo>.self, from: data)
///     do {
///         let changes = try replica.apply(update)      // animate with `changes`
///     } catch is ResultsReplica<Todo>.Gap {
///         reconnect(since: replica.version)             // missed an update: resume
///     }
/// }
/// ```
///
/// A replica is `Sendable`: any thread may apply and read. An update that does not fit the replica
/// throws and leaves it unchanged, so a client never breaks on what a server sends.
public final class ResultsReplica<Entity: FetchableEntity & Codable>: Sendable {
    @usableFromInline struct State: Sendable {
        @usableFromInline var results = _ReplicaStorage<Entity>()
        @usableFromInline var version: ResultsVersion?
        /// The observers of the change sets that ``ResultsReplica/apply(_:)`` makes, and those waiting for them.
        @usableFromInline var engine = _DeliveryEngine<Entity, Never>()

        @usableFromInline init() {}
    }

    @usableFromInline let _state = _Lock(State())

    /// Creates an empty replica, with no version: its first update must be a whole-results one.
    @inlinable public init() {}

    /// An update that applies to another version than the replica's: one was missed.
    ///
    /// The replica is unchanged; resume from its ``ResultsReplica/version``
    /// (``FetchedResultsController/updates(since:bufferLimit:)``).
    public struct Gap: Error, Sendable, Equatable, CustomStringConvertible {
        /// The replica's version when the update arrived.
        public let version: ResultsVersion?
        /// The version the update applies to.
        public let base: ResultsVersion

        /// Creates a gap error.
        public init(version: ResultsVersion?, base: ResultsVersion) {
            self.version = version
            self.base = base
        }

        /// Names both versions.
        ///
        /// - Complexity: O(1).
        public var description: String {
            "the update applies to version \(base), the replica has \(version.map(String.init(describing:)) ?? "none")"
        }
    }

    /// An update that does not fit the replica's results: a position out of range, a delete of a
    /// section that keeps items, an id shown twice, an update naming another entity.
    ///
    /// The replica is unchanged. Such an update did not come from a controller's update stream, or was
    /// altered on the way; start over with the whole results.
    public struct InvalidUpdate: Error, Sendable, Equatable, CustomStringConvertible {
        /// What does not fit.
        public let reason: String

        /// Creates an invalid-update error.
        public init(reason: String) {
            self.reason = reason
        }

        /// The reason.
        ///
        /// - Complexity: O(1).
        public var description: String { reason }
    }

    /// Applies an update: the whole results, or a change set from the replica's version.
    ///
    /// - Returns: The change set the update made: the update's own, with ids and section names; for a
    ///   whole-results update, the change set from the earlier results to the new ones (all inserted
    ///   for the first), so that a view animates a resync too.
    /// - Throws: ``Gap`` when a change set applies to another version than ``version``;
    ///   ``InvalidUpdate`` when the update does not fit the results. Either way the replica is unchanged.
    /// - Complexity: O(*k* log *n*) amortized for a change set of *k* changes; O(*n*) for the whole results.
    @discardableResult
    @inlinable public func apply(_ update: ResultsUpdate<Entity>) throws -> ChangeSet<Entity> {
        // A change set changes the results in place, undoing its steps if one does not fit; whole
        // results replace them, and the old ones are released after the lock.
        let (changes, replaced) = try _state.withLock { state throws -> (ChangeSet<Entity>, _ReplicaStorage<Entity>?) in
            do {
                switch update.content {
                case .results(let sections):
                    var results = try _ReplicaStorage(sections: sections.map { ($0.name, $0.entities) })
                    let changes = results.changeSet(from: state.results)
                    swap(&results, &state.results)
                    state.version = update.version
                    let snapshot = state.results.snapshot
                    state.engine.enqueue(changes, after: { snapshot }, delegate: nil, scheduler: .immediate)
                    return (changes, results)
                case .changes(let base, let wire):
                    guard base == state.version else { throw Gap(version: state.version, base: base) }
                    let changes = try state.results.apply(wire)
                    state.version = update.version
                    let snapshot = state.results.snapshot
                    state.engine.enqueue(changes, after: { snapshot }, delegate: nil, scheduler: .immediate)
                    return (changes, nil)
                }
            } catch let error as _ReplicaError {
                throw InvalidUpdate(reason: error.reason)
            }
        }
        withExtendedLifetime(replaced) {}
        _deliverQueued()
        return changes
    }

    // MARK: Observing

    /// The change sets that ``apply(_:)`` makes from now on, each exactly once, in order, buffered without
    /// limit until read; the sequence finishes when the replica is released.
    ///
    /// - Complexity: O(1) to subscribe, and per change set.
    @inlinable public var changes: ResultsChanges<Entity> { changes(bufferingPolicy: .unbounded) }

    /// The change sets that ``apply(_:)`` makes from now on, buffered by `bufferingPolicy` until read (see
    /// ``FetchedResultsController/changes(bufferingPolicy:)``).
    ///
    /// - Complexity: O(1) to subscribe, and per change set.
    @inlinable public func changes(bufferingPolicy: ResultsChanges<Entity>.BufferingPolicy) -> ResultsChanges<Entity> {
        _DeliveryEngine<Entity, Never>.Subscribers.changes(bufferingPolicy: bufferingPolicy) { subscriber in
            _state.withLock { $0.engine.subscribers.add(subscriber) }
        } unregister: { [weak self] id in
            // Released after the lock (see `remove`).
            _ = self?._state.withLock { $0.engine.subscribers.remove(subscriber: id) }
        }
    }

    /// Calls `handler` with every change set that ``apply(_:)`` makes from now on and the results right after
    /// it, on the thread that applied it, before `apply` returns (unless a handler on another thread is
    /// being called: then after it, in order), until the subscription is cancelled or released.
    ///
    /// - Returns: The results the first change set the handler receives applies to, and the subscription.
    /// - Complexity: O(1).
    @inlinable public func observeChanges(
        _ handler: @escaping @Sendable (ChangeSet<Entity>, FetchedResultsSnapshot<Entity>) -> Void
    ) -> (snapshot: FetchedResultsSnapshot<Entity>, subscription: EventSubscription) {
        _observeChangesUnversioned(handler)
    }

    /// ``observeChanges(_:)`` with the version each change set leads to: the number of non-empty change sets
    /// the replica made (not its ``version``, which its server counts). For ``ObservableResults``.
    ///
    /// - Returns: The results the first change set the handler receives applies to, their version, and the
    ///   subscription.
    /// - Complexity: O(1).
    @inlinable func _observeVersionedChanges(
        _ handler: @escaping @Sendable (ChangeSet<Entity>, FetchedResultsSnapshot<Entity>, UInt64) -> Void
    ) -> (snapshot: FetchedResultsSnapshot<Entity>, version: UInt64, subscription: EventSubscription) {
        let (read, subscription) = _DeliveryEngine<Entity, Never>.Subscribers.observe(handler) { add in
            _state.withLock { state in (add(&state.engine.subscribers), (state.results.snapshot, state.engine.version))
            }
        } unregister: { [weak self] id in
            // Released after the lock (see `remove`).
            _ = self?._state.withLock { $0.engine.subscribers.remove(observer: id) }
        }
        return (read.0, read.1, subscription)
    }

    /// The results now, with their version (see ``_observeVersionedChanges(_:)``).
    ///
    /// - Complexity: O(1).
    @inlinable func _versionedSnapshot() -> (snapshot: FetchedResultsSnapshot<Entity>, version: UInt64) {
        _state.withLock { ($0.results.snapshot, $0.engine.version) }
    }

    deinit {
        _state.withLock { $0.engine.close() }.finish()
    }

    // MARK: Reading

    /// The version of the results, or `nil` before the first update.
    ///
    /// - Complexity: O(1).
    @inlinable public var version: ResultsVersion? {
        _state.withLock { $0.version }
    }

    /// The results now, as an immutable value that stays valid while the replica changes.
    ///
    /// - Complexity: O(1); no entity is copied.
    @inlinable public var snapshot: FetchedResultsSnapshot<Entity> {
        _state.withLock { $0.results.snapshot }
    }

    /// All entities in display order. See ``FetchedResultsSnapshot/fetchedObjects``.
    ///
    /// - Complexity: O(1); iterating it costs O(log₁₆ *n*) per entity.
    @inlinable public var fetchedObjects: FetchedObjects<Entity> { snapshot.fetchedObjects }

    /// The sections in order. See ``FetchedResultsSnapshot/sections``.
    ///
    /// - Complexity: O(1).
    @inlinable public var sections: FetchedResultsSections<Entity> { snapshot.sections }

    /// The entity at an index path. See ``FetchedResultsSnapshot/object(at:)``.
    ///
    /// - Complexity: O(log *n*).
    @inlinable public func object(at indexPath: IndexPath) -> Entity { snapshot.object(at: indexPath) }

    /// The index path of the entity with the same id, or `nil`. See ``FetchedResultsSnapshot/indexPath(for:)``.
    ///
    /// - Complexity: O(log *n*).
    @inlinable public func indexPath(for entity: Entity) -> IndexPath? { snapshot.indexPath(for: entity) }

    /// The index path of the entity with this id, or `nil`. See ``FetchedResultsSnapshot/indexPath(forID:)``.
    ///
    /// - Complexity: O(log *n*).
    @inlinable public func indexPath(forID id: Entity.ID) -> IndexPath? { snapshot.indexPath(forID: id) }

    /// The entity with this id, or `nil`. See ``FetchedResultsSnapshot/object(withID:)``.
    ///
    /// - Complexity: O(log₁₆ *n*).
    @inlinable public func object(withID id: Entity.ID) -> Entity? { snapshot.object(withID: id) }
}

/// The replica delivers through an engine of its own, under its lock; it has no delegate.
extension ResultsReplica: _DeliveryHost {
    @inlinable func _withEngine<Result>(_ body: (inout _DeliveryEngine<Entity, Never>) -> Result) -> Result {
        _state.withLock { body(&$0.engine) }
    }

    @inlinable func _callDelegate(
        _ delegate: Never, with changes: ChangeSet<Entity>, snapshot: FetchedResultsSnapshot<Entity>?
    ) {}
}
