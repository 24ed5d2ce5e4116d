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
        var seen = Set<Entity.ID>()
        for id in new.records.keysChanged(since: old.records) where seen.insert(id).inserted {
            let (earlier, later) = (old.stored(forID: id), new.stored(forID: id))
            guard earlier != later else { continue }
            ids.append(id)
            guard let earlier, let indexPath = old.indexPath(forID: id) else {
                markRepositioned(id)
                continue
            }
            let name = old.sections[indexPath[0]].name
            before[id] = Before(entity: earlier.entity, indexPath: indexPath, sectionName: name)
            guard let later, later.sequence == earlier.sequence, ordering.sectionName(later.entity) == name,
                ordering.compare(earlier.entity, later.entity) == .orderedSame
            else {
                markRepositioned(id)
                continue
            }
        }
    }
}
