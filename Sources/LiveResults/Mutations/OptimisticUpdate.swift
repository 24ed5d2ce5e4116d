/// Events applied before the write they stand for is confirmed: keep them with ``commit()``, or undo
/// them with ``rollBack()`` when the write fails.
///
/// ```swift
/// let update = controller.applyOptimistically([.updated(edited)])   // shown at once
/// do {
///     try await api.save(edited)
///     update.commit()
/// } catch {
///     update.rollBack()                                            // back to what was shown before
/// }
/// ```
///
/// A rollback restores each entity the events touched to its version before them (present or absent,
/// with its insertion position), unless something changed it since: a later event's version wins. A
/// fetch or a reset since the update makes the rollback do nothing, as the results then come from the
/// source. An update is settled once: after a commit or a rollback, both do nothing.
public final class OptimisticUpdate<Entity: FetchableEntity>: Sendable {
    /// A weak reference to the controller, as a value the class can hold in a constant.
    @usableFromInline struct Owner: Sendable {
        @usableFromInline weak var controller: FetchedResultsController<Entity>?

        @inlinable init(controller: FetchedResultsController<Entity>) {
            self.controller = controller
        }
    }

    /// One entity the events touched: its versions before and after them.
    @usableFromInline struct Record: Sendable {
        @usableFromInline let id: Entity.ID
        @usableFromInline let before: _StoredEntity<Entity>?
        @usableFromInline let after: _StoredEntity<Entity>?

        @inlinable init(id: Entity.ID, before: _StoredEntity<Entity>?, after: _StoredEntity<Entity>?) {
            self.id = id
            self.before = before
            self.after = after
        }
    }

    /// The change set the events caused, as ``FetchedResultsController/apply(_:)-([EntityEvent<Entity>])``
    /// returned it.
    public let changes: ChangeSet<Entity>
    /// The controller, weakly: an update does not keep it alive.
    @usableFromInline let owner: Owner
    /// The records, until the update is settled.
    @usableFromInline let pending: _Lock<[Record]?>
    /// The controller's fetch generation when the events applied.
    @usableFromInline let generation: UInt64

    @inlinable init(
        changes: ChangeSet<Entity>, controller: FetchedResultsController<Entity>, records: [Record], generation: UInt64
    ) {
        self.changes = changes
        self.owner = Owner(controller: controller)
        self.pending = _Lock(records)
        self.generation = generation
    }

    /// Whether ``commit()`` or ``rollBack()`` was called.
    @inlinable public var isSettled: Bool {
        pending.withLock { $0 == nil }
    }

    /// Keeps the events' effects: the update is settled and can no longer be rolled back.
    @inlinable public func commit() {
        pending.withLock { $0 = nil }
    }

    /// Restores each entity the events touched to its version before them, unless it changed since.
    ///
    /// - Returns: The change set of the rollback, also delivered to the controller's observers; empty
    ///   when nothing was restored (settled already, everything changed since, a fetch or reset since,
    ///   or the controller is gone).
    /// - Complexity: O(*k* log *n*) for *k* entities the events touched.
    @discardableResult
    @inlinable public func rollBack() -> ChangeSet<Entity> {
        let records = pending.withLock { records in
            defer { records = nil }
            return records
        }
        guard let records, let controller = owner.controller else { return ChangeSet() }
        return controller.roll(back: records, since: generation)
    }
}
