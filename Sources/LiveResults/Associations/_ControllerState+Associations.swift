import Foundation

/// The association caches, run under the controller's lock against the results shown: reads, arrivals,
/// invalidation by events and fetches, and memory pressure. Each function returns what must happen outside
/// the lock (requests to start, waiters to resume) and queues its change set with ``enqueue(_:_:)``.
extension _ControllerState {
    @usableFromInline typealias AssociationRequest = _AssociationCache<Entity>.Request
    @usableFromInline typealias AssociationWaiter = _AssociationWaiters<Entity.ID>.Continuation

    /// Reads an entity's value, registering the association on first use. See
    /// ``_AssociationState/read(_:for:in:now:)``.
    @inlinable mutating func readAssociation(
        _ association: any AssociationProtocol<Entity>, for id: Entity.ID, now: ContinuousClock.Instant
    ) -> (_AssociationCache<Entity>.Read, AssociationRequest?, follower: _AssociationFollower?) {
        defer { associations.publishReferenceChanges() }
        return associations.read(association, for: id, in: core.storage, now: now)
    }

    /// Applies a batch of a live association's related events, and queues one change set reporting the
    /// shown entities whose value changed.
    @inlinable mutating func applyRelatedChanges(_ changes: _RelatedChanges, to association: ObjectIdentifier) {
        enqueueUpdates(of: associations.apply(changes, to: association))
        associations.publishReferenceChanges()
    }

    /// After a batch of events: settles the entities they touched. See
    /// ``_AssociationState/invalidate(touchedBy:in:)``.
    @inlinable mutating func invalidateAssociations(
        touchedBy events: some Sequence<EntityEvent<Entity>>
    ) -> [AssociationWaiter] {
        // Checked here, before the storage is passed (and retained), as most controllers have no association.
        guard !associations.caches.isEmpty else { return [] }
        defer { associations.publishReferenceChanges() }
        return associations.invalidate(touchedBy: events, in: core.storage)
    }

    /// After a fetch: settles the entities that are gone or whose keys changed. See
    /// ``_AssociationState/reconcile(with:)``.
    @inlinable mutating func reconcileAssociations() -> [AssociationWaiter] {
        defer { associations.publishReferenceChanges() }
        return associations.reconcile(with: core.storage)
    }

    /// Caches a request's results, and queues one change set reporting the entities that got a value.
    ///
    /// - Returns: A follow-up request, and the waiters to resume.
    @inlinable mutating func receiveAssociationResults(
        _ results: [_AssociationKey: any Sendable], for request: AssociationRequest
    ) -> (followUp: AssociationRequest?, waiters: [AssociationWaiter]) {
        guard let settlement = associations.receive(results, for: request, in: core.storage) else { return (nil, []) }
        associations.publishReferenceChanges()
        enqueueUpdates(of: settlement.served)
        return (settlement.followUp, settlement.waiters)
    }

    /// Releases the entities that waited for a failed request, and counts the failure.
    ///
    /// - Returns: The waiters to resume with the error.
    @inlinable mutating func failAssociationRequest(
        _ request: AssociationRequest, error: any Error, now: ContinuousClock.Instant
    ) -> [AssociationWaiter] {
        statistics.failedAssociationRequests += 1
        defer { associations.publishReferenceChanges() }
        return associations.fail(request, error: error, now: now)
    }

    /// Drops every cached value, and queues one change set reporting the shown entities that had one.
    @inlinable mutating func dropAssociatedValues() {
        enqueueUpdates(of: associations.dropValues())
        associations.publishReferenceChanges()
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
