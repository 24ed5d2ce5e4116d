import Foundation

extension _SnapshotDiff {
    /// The change set between two snapshots of the same live results, as their readers see them: whole
    /// results, a window's or a collapsible view's display, a replica's.
    ///
    /// Snapshots of whole storages are diffed as storages; the others from what they show, matched by id.
    ///
    /// - Complexity: O(*n*) expected for *n* entities shown, plus O(*m* log *m*) for *m* runs of entities that
    ///   kept their order; reading a window's or a display's entities costs O(log *n*) each.
    @inlinable static func changeSet<Entity>(
        from old: FetchedResultsSnapshot<Entity>, to new: FetchedResultsSnapshot<Entity>
    ) -> ChangeSet<Entity> {
        if old.showsWholeStorage && new.showsWholeStorage { return changeSet(from: old._storage, to: new._storage) }
        let (oldLayout, newLayout) = (_SnapshotLayout<Entity.ID>(old), _SnapshotLayout<Entity.ID>(new))
        let (oldObjects, newObjects) = (Array(old.fetchedObjects), Array(new.fetchedObjects))
        var oldPositions = [Entity.ID: Int](minimumCapacity: oldLayout.count)
        for (position, id) in oldLayout.ids.enumerated() { oldPositions[id] = position }
        var match = _SnapshotMatch(oldCount: oldLayout.count, newCount: newLayout.count)
        for (position, id) in newLayout.ids.enumerated() {
            guard let oldPosition = oldPositions[id] else { continue }
            match.pair(old: oldPosition, new: position, changed: oldObjects[oldPosition] != newObjects[position])
        }
        return changeSet(from: oldLayout, to: newLayout, match: match)
    }
}

extension _SnapshotLayout {
    /// The layout of what `snapshot` shows: its sections (a collapsed one too, with no entities) and their
    /// entities.
    ///
    /// - Complexity: O(*n* log *n*) for *n* entities shown.
    @inlinable init<Entity: FetchableEntity>(_ snapshot: FetchedResultsSnapshot<Entity>) where Entity.ID == ID {
        for section in snapshot.sections {
            names.append(section.name)
            starts.append(ids.count)
            for entity in section.objects { ids.append(entity.id) }
        }
        starts.append(ids.count)
    }
}

extension FetchedResultsSnapshot {
    /// Whether the snapshot shows its whole storage, as stored: not a window, a display or a replica's.
    @inlinable var showsWholeStorage: Bool { _window == nil && _displayed == nil && _positions == nil }
}
