/// A controller's associations: the cache of each association used so far, how many entities a request
/// covers, the tasks waiting for values, and the memory-pressure subscription that drops the values. A value
/// under the controller's lock; its transitions read the results shown, and return what must happen outside
/// the lock (waiters to resume, requests to start).
@usableFromInline struct _AssociationState<Entity: FetchableEntity>: Sendable {
    @usableFromInline typealias Request = _AssociationCache<Entity>.Request
    @usableFromInline typealias Waiter = _AssociationWaiters<Entity.ID>.Continuation

    /// The cache of every association used so far, by the association's identity.
    @usableFromInline var caches: [ObjectIdentifier: _AssociationCache<Entity>] = [:]
    /// How many entities around the one read an association request covers; 0 is all of them.
    @usableFromInline var fetchSize = 10
    /// The tasks waiting in ``FetchedResultsController/loadAssociatedValue(_:for:)``.
    @usableFromInline var waiters = _AssociationWaiters<Entity.ID>()
    /// Keeps the controller subscribed to its memory-pressure source.
    @usableFromInline var memoryPressureSubscription: EventSubscription?
    /// The controller's identity, by which live associations' followers know it.
    @usableFromInline var owner: ObjectIdentifier?

    @inlinable init() {}

    /// Registers an association's cache, if it has none yet.
    ///
    /// - Returns: The follower of a live association registered now: the controller attaches to it, outside
    ///   the lock and before it starts a request.
    @discardableResult
    @inlinable mutating func register(_ association: any AssociationProtocol<Entity>) -> _AssociationFollower? {
        let id = ObjectIdentifier(association)
        guard caches[id] == nil else { return nil }
        caches[id] = _AssociationCache(association)
        return association._erased.follower
    }

    /// Reads an entity's value, registering the association on first use. See
    /// ``_AssociationCache/read(_:in:windowSize:now:)``.
    @inlinable mutating func read(
        _ association: any AssociationProtocol<Entity>, for id: Entity.ID, in storage: _SectionedStorage<Entity>,
        now: ContinuousClock.Instant
    ) -> (_AssociationCache<Entity>.Read, Request?, follower: _AssociationFollower?) {
        let follower = register(association)
        let (read, request) = caches[ObjectIdentifier(association)]!.read(
            id, in: storage, windowSize: fetchSize, now: now)
        return (read, request, follower)
    }

    /// Applies a batch of a live association's related events to its cache. See
    /// ``_AssociationCache/apply(_:)``.
    ///
    /// - Returns: The entities that were served a value the batch changed or dropped.
    @inlinable mutating func apply(_ changes: _RelatedChanges, to association: ObjectIdentifier) -> Set<Entity.ID> {
        caches[association]?.apply(changes) ?? []
    }

    /// After a batch of events: settles the served and waiting entities the events removed or whose keys
    /// they changed.
    ///
    /// - Returns: The waiters of the entities that stopped waiting, to resume: they read again.
    /// - Complexity: O(*k* × *a*) on average for *k* events and *a* associations, plus O(log *n*) per
    ///   served or waiting entity an event touched.
    @inlinable mutating func invalidate(
        touchedBy events: some Sequence<EntityEvent<Entity>>, in storage: _SectionedStorage<Entity>
    ) -> [Waiter] {
        guard !caches.isEmpty else { return [] }
        var resumed: [Waiter] = []
        for case let id? in events.lazy.map(\.entityID) {
            for index in caches.indices where caches.values[index].entityChanged(id, in: storage) {
                resumed += waiters.take(association: caches.keys[index], ids: [id])
            }
        }
        return resumed
    }

    /// After a fetch: settles the served and waiting entities that are gone or whose keys changed.
    ///
    /// - Returns: The waiters of the entities that stopped waiting, to resume: they read again.
    /// - Complexity: O(*v* + *e*) for *v* served and *e* waiting entities.
    @inlinable mutating func reconcile(with storage: _SectionedStorage<Entity>) -> [Waiter] {
        var resumed: [Waiter] = []
        for index in caches.indices {
            let released = caches.values[index].reconcile(with: storage)
            resumed += waiters.take(association: caches.keys[index], ids: released)
        }
        return resumed
    }

    /// Caches a request's results.
    ///
    /// - Returns: The entities that got a value (to report as updated), a follow-up request, and the
    ///   waiters to resume; `nil` when the association is unknown.
    @inlinable mutating func receive(
        _ results: [_AssociationKey: any Sendable], for request: Request, in storage: _SectionedStorage<Entity>
    ) -> (served: [Entity.ID], followUp: Request?, waiters: [Waiter])? {
        guard let settlement = caches[request.association]?.receive(results, for: request, in: storage) else {
            return nil
        }
        let resumed = waiters.take(association: request.association, ids: settlement.served + settlement.released)
        return (settlement.served, settlement.followUp, resumed)
    }

    /// Releases the entities that waited for a failed request.
    ///
    /// - Returns: The waiters to resume with the error.
    @inlinable mutating func fail(_ request: Request, error: any Error, now: ContinuousClock.Instant) -> [Waiter] {
        guard let released = caches[request.association]?.fail(request, error: error, now: now) else { return [] }
        return waiters.take(association: request.association, ids: released)
    }

    /// The followers of the live associations used so far.
    @inlinable var followers: [_AssociationFollower] { caches.values.compactMap(\.erased.follower) }

    /// Tells the follower of each live association which keys this controller started or stopped holding,
    /// so that its events reach the controllers that hold their keys and no others. Runs under the
    /// controller's lock, after each transition, so that the follower learns the changes in their order.
    ///
    /// - Complexity: O(*a*) for *a* associations, plus O(*r*) for *r* keys that changed.
    @inlinable mutating func publishReferenceChanges() {
        guard let owner else { return }
        for index in caches.indices where !caches.values[index].referenceChanges.isEmpty {
            caches.values[index].erased.follower?.reference(caches.values[index].referenceChanges, by: owner)
            caches.values[index].referenceChanges.removeAll()
        }
    }

    /// Drops every cached value.
    ///
    /// - Returns: The entities that had one.
    @inlinable mutating func dropValues() -> Set<Entity.ID> {
        var dropped = Set<Entity.ID>()
        for index in caches.indices {
            dropped.formUnion(caches.values[index].dropValues())
        }
        return dropped
    }
}
