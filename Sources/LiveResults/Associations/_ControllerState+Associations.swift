import Foundation

/// The association caches, run under the controller's lock: reads, arrivals, invalidation by events
/// and fetches, and memory pressure. Each function returns what must happen outside the lock
/// (requests to start, waiters to resume) and queues its change set with ``enqueue(_:)``.
extension _ControllerState {
    @usableFromInline typealias AssociationRequest = _AssociationCache<Entity>.Request
    @usableFromInline typealias AssociationWaiter = _AssociationWaiters<Entity.ID>.Continuation

    /// Registers an association's cache, if it has none yet.
    @inlinable mutating func register(_ association: any AssociationProtocol<Entity>) {
        let id = ObjectIdentifier(association)
        if associations[id] == nil { associations[id] = _AssociationCache(association) }
    }

    /// Reads an entity's value, registering the association on first use. See
    /// ``_AssociationCache/read(_:in:windowSize:now:)``.
    @inlinable mutating func readAssociation(
        _ association: any AssociationProtocol<Entity>, for id: Entity.ID, now: ContinuousClock.Instant
    ) -> (_AssociationCache<Entity>.Read, AssociationRequest?) {
        register(association)
        return associations[ObjectIdentifier(association)]!.read(
            id, in: core.storage, windowSize: associatedFetchSize, now: now)
    }

    /// After a batch of events: settles the served and waiting entities the events removed or whose keys
    /// they changed.
    ///
    /// - Returns: The waiters of the entities that stopped waiting, to resume: they read again.
    /// - Complexity: O(*k* × *a*) on average for *k* events and *a* associations, plus O(log *n*) per
    ///   served or waiting entity an event touched.
    @inlinable mutating func invalidateAssociations(
        touchedBy events: some Sequence<EntityEvent<Entity>>
    ) -> [AssociationWaiter] {
        guard !associations.isEmpty else { return [] }
        var waiters: [AssociationWaiter] = []
        for case let id? in events.lazy.map(\.entityID) {
            for index in associations.indices where associations.values[index].entityChanged(id, in: core.storage) {
                waiters += associationWaiters.take(association: associations.keys[index], ids: [id])
            }
        }
        return waiters
    }

    /// After a fetch: settles the served and waiting entities that are gone or whose keys changed.
    ///
    /// - Returns: The waiters of the entities that stopped waiting, to resume: they read again.
    /// - Complexity: O(*v* + *e*) for *v* served and *e* waiting entities.
    @inlinable mutating func reconcileAssociations() -> [AssociationWaiter] {
        var waiters: [AssociationWaiter] = []
        for index in associations.indices {
            let released = associations.values[index].reconcile(with: core.storage)
            waiters += associationWaiters.take(association: associations.keys[index], ids: released)
        }
        return waiters
    }

    /// Caches a request's results, and queues one change set reporting the entities that got a value.
    ///
    /// - Returns: A follow-up request, and the waiters to resume.
    @inlinable mutating func receiveAssociationResults(
        _ results: [_AssociationKey: any Sendable], for request: AssociationRequest
    ) -> (followUp: AssociationRequest?, waiters: [AssociationWaiter]) {
        guard let settlement = associations[request.association]?.receive(results, for: request, in: core.storage)
        else { return (nil, []) }
        enqueueUpdates(of: settlement.served)
        let waiters = associationWaiters.take(
            association: request.association, ids: settlement.served + settlement.released)
        return (settlement.followUp, waiters)
    }

    /// Releases the entities that waited for a failed request, and counts the failure.
    ///
    /// - Returns: The waiters to resume with the error.
    @inlinable mutating func failAssociationRequest(
        _ request: AssociationRequest, error: any Error, now: ContinuousClock.Instant
    ) -> [AssociationWaiter] {
        statistics.failedAssociationRequests += 1
        guard let released = associations[request.association]?.fail(request, error: error, now: now) else {
            return []
        }
        return associationWaiters.take(association: request.association, ids: released)
    }

    /// Drops every cached value, and queues one change set reporting the shown entities that had one.
    @inlinable mutating func dropAssociatedValues() {
        var dropped = Set<Entity.ID>()
        for index in associations.indices {
            dropped.formUnion(associations.values[index].dropValues())
        }
        enqueueUpdates(of: dropped)
    }

    /// Queues a change set that reports these entities, those still shown, as updated.
    ///
    /// - Complexity: O(*e* log *n*) for *e* entities.
    @inlinable mutating func enqueueUpdates(of ids: some Sequence<Entity.ID>) {
        var builder = _ChangeSetBuilder<Entity>()
        for id in ids {
            if let indexPath = core.storage.indexPath(forID: id) { builder.update(id, at: indexPath) }
        }
        enqueue(builder.build(), .values)
    }
}
