import Foundation

/// The change set between two versions of the same results, found from what differs between them: the
/// mechanism behind a paused controller's catch-up change set and coalesced delivery.
///
/// An earlier version (a snapshot's storage) and a later one share every node that the changes in
/// between did not copy. Walking the two id tries side by side, skipping shared nodes, finds the *k*
/// entities whose stored version differs; the change set then comes from those alone, as a batch's does
/// (``_BatchDiff``): entities whose section, sort keys and insertion sequence are the same in both
/// versions keep their order relative to each other, and the minimal moves are chosen among the rest
/// and the runs they leave. An entity inserted and deleted in between, or changed and changed back, is
/// in neither version's difference and does not appear.
@usableFromInline enum _VersionDiff {
    /// The change set that turns `old` into `new`.
    ///
    /// - Parameters:
    ///   - old: The earlier version.
    ///   - new: The later version.
    ///   - isRebuilt: Whether `new` was rebuilt since `old` rather than changed entity by entity (a
    ///     refetch, a resort or a reset): then nothing is shared, or the ordering differs, and the two are
    ///     compared whole.
    /// - Complexity: O(*k* log *n*) for *k* entities whose stored version differs; O(*n*) when rebuilt.
    @inlinable static func changeSet<Entity>(
        from old: _SectionedStorage<Entity>, to new: _SectionedStorage<Entity>, isRebuilt: Bool
    ) -> ChangeSet<Entity> {
        guard !isRebuilt else { return _SnapshotDiff.changeSet(from: old, to: new) }
        return _BatchDiff(changesFrom: old, to: new).changeSet(after: new)
    }
}

extension _BatchDiff {
    /// Records where every entity whose stored version differs between `old` and `new` was in `old`,
    /// and which of them `new` holds elsewhere in the order.
    ///
    /// - Complexity: O(*k* log *n*) for *k* entities whose stored version differs.
    @inlinable init(changesFrom old: _SectionedStorage<Entity>, to new: _SectionedStorage<Entity>) {
        let ordering = new.ordering
        var later: [Entity.ID: _StoredEntity<Entity>] = [:]
        var looked = Set<Entity.ID>()
        for difference in new.records.differences(since: old.records) {
            let id = difference.key
            let (earlier, current): (_StoredEntity<Entity>?, _StoredEntity<Entity>?)
            if difference.isComplete {
                (earlier, current) = (difference.old, difference.new)
            } else {
                guard looked.insert(id).inserted else { continue }
                (earlier, current) = (old.stored(forID: id), new.stored(forID: id))
                guard earlier != current else { continue }
            }
            ids.append(id)
            if let current { later[id] = current }
            guard let earlier else {
                markRepositioned(id)
                continue
            }
            let name = ordering.sectionName(earlier.entity)
            if let current, current.sequence == earlier.sequence, ordering.sectionName(current.entity) == name,
                ordering.compare(earlier.entity, current.entity) == .orderedSame
            {
                // It keeps its place among the others: only its content changed, and where it was is not needed.
                updatedInPlace.insert(id)
                continue
            }
            let place = old.place(of: earlier, inSection: name)
            before[id] = Before(
                entity: earlier.entity, indexPath: IndexPath(_section: place.section, item: place.item),
                sectionName: name)
            markRepositioned(id)
        }
        self.later = later
    }
}
