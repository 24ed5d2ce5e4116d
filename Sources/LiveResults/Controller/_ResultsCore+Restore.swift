extension _ResultsCore {
    /// Puts stored versions back as they were (present with their insertion sequence, or absent).
    ///
    /// - Parameters:
    ///   - versions: Each id with the version to restore, `nil` for absent.
    ///   - events: An event naming each id, for the diff to record where they are now.
    /// - Complexity: O(*k* log *n*) for *k* ids.
    @inlinable mutating func restore(
        _ versions: [(id: Entity.ID, version: _StoredEntity<Entity>?)], events: [EntityEvent<Entity>]
    ) -> ChangeSet<Entity> {
        var diff = _BatchDiff(events: events, storage: storage)
        for (id, version) in versions {
            undo?.record(id, before: storage.stored(forID: id))
            storage.remove(id: id)
            if let version { storage.insert(version) }
            diff.markRepositioned(id)
        }
        return diff.changeSet(after: storage)
    }
}
