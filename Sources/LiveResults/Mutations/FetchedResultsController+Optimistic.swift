extension FetchedResultsController {
    /// Applies events at once, as ``apply(_:)-([EntityEvent<Entity>])`` does, and returns an update that
    /// can undo them: for writes shown before the source confirms them.
    ///
    /// ```swift
    /// let update = controller.applyOptimistically([.updated(edited)])
    /// // later: update.commit(), or update.rollBack() if the write failed
    /// ```
    ///
    /// Before the first fetch or after a reset the events are ignored, as any events are, and the update
    /// has nothing to roll back.
    ///
    /// - Returns: The update, whose ``OptimisticUpdate/changes`` is the change set the events caused.
    /// - Complexity: O(*k* log *n*) for *k* events.
    @inlinable public func applyOptimistically(_ events: [EntityEvent<Entity>]) -> OptimisticUpdate<Entity> {
        var records: [OptimisticUpdate<Entity>.Record] = []
        var seen = Set<Entity.ID>()
        let ids = events.compactMap { event in event.entityID.flatMap { seen.insert($0).inserted ? $0 : nil } }
        let changes = apply(events) { core in
            let before = ids.map { core.storage.stored(forID: $0) }
            let result = core.apply(events)
            records = zip(ids, before).map { id, before in
                OptimisticUpdate.Record(id: id, before: before, after: core.storage.stored(forID: id))
            }
            return result
        }
        let generation = _state.withLock { $0.fetchCycle.generation }
        return OptimisticUpdate(changes: changes, controller: self, records: records, generation: generation)
    }

    /// Restores the entities of `records` that did not change since, unless a fetch or a reset happened
    /// since `generation`.
    @inlinable func roll(back records: [OptimisticUpdate<Entity>.Record], since generation: UInt64) -> ChangeSet<Entity>
    {
        commit { state, then in
            guard state.fetchCycle.isLive, state.fetchCycle.isCurrent(generation) else { return ChangeSet() }
            let restored = records.filter {
                state.core.storage.stored(forID: $0.id) == $0.after && $0.before != $0.after
            }
            guard !restored.isEmpty else { return ChangeSet() }
            let events = restored.map { EntityEvent<Entity>.deleted($0.id) }
            let changes = state.core.restore(restored.map { ($0.id, $0.before) }, events: events)
            then.resume(state.invalidateAssociations(touchedBy: events))
            state.enqueue(changes)
            return changes
        }
    }
}
