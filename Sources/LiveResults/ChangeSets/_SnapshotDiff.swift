import Foundation

/// The change set between two whole storages, matched by id: used by refetch, resort and reset.
///
/// Entities whose content did not change are preferred as the ones that stay, so among minimal sets of
/// moves the changed entities are the ones that move.
@usableFromInline enum _SnapshotDiff {
    /// - Complexity: O(*n* log *n*) for *n* entities.
    @inlinable static func changeSet<Entity>(
        from old: _SectionedStorage<Entity>,
        to new: _SectionedStorage<Entity>
    ) -> ChangeSet<Entity> {
        if old.count == 0 || new.count == 0 {
            return everything(of: old.count == 0 ? new : old, inserted: old.count == 0)
        }
        var builder = _ChangeSetBuilder<Entity>()
        var oldPlaces: [Entity.ID: (indexPath: IndexPath, entity: Entity)] = [:]
        oldPlaces.reserveCapacity(old.count)
        var oldSections: [String: Int] = [:]
        for (sectionIndex, section) in old.sections.enumerated() {
            oldSections[section.name] = sectionIndex
            for (item, slot) in section.items.enumerated() {
                oldPlaces[slot.id] = (IndexPath(indexes: [sectionIndex, item]), old.stored(forID: slot.id)!.entity)
            }
        }
        for (sectionIndex, section) in new.sections.enumerated() {
            let oldSection = oldSections[section.name]
            if oldSection == nil { builder.insertSection(sectionIndex, name: section.name) }
            var stayed: [(id: Entity.ID, oldItem: Int, newItem: Int, unchanged: Bool)] = []
            for (item, slot) in section.items.enumerated() {
                let id = slot.id
                let entity = new.stored(forID: id)!.entity
                let indexPath = IndexPath(indexes: [sectionIndex, item])
                guard let before = oldPlaces[id] else {
                    builder.insert(id, at: indexPath)
                    continue
                }
                let unchanged = before.entity == entity
                if !unchanged { builder.update(id, at: indexPath) }
                if before.indexPath[0] == oldSection {
                    stayed.append((id, before.indexPath[1], item, unchanged))
                } else {
                    builder.move(id, from: before.indexPath, to: indexPath)
                }
            }
            stayed.sort { $0.oldItem < $1.oldItem }
            let kept = _MinimalMoves.kept(
                newKeys: stayed.map(\.newItem),
                weights: stayed.map { _MinimalMoves.Weight(kept: 1, stationary: $0.unchanged ? 1 : 0) }
            )
            for (entry, isKept) in zip(stayed, kept) where !isKept {
                builder.move(
                    entry.id, from: IndexPath(indexes: [oldSection!, entry.oldItem]),
                    to: IndexPath(indexes: [sectionIndex, entry.newItem]))
            }
        }
        for (sectionIndex, section) in old.sections.enumerated() {
            if !new.sectionIndex(named: section.name).found {
                builder.deleteSection(sectionIndex, name: section.name)
            }
            for (item, slot) in section.items.enumerated() where new.stored(forID: slot.id) == nil {
                builder.delete(slot.id, at: IndexPath(indexes: [sectionIndex, item]))
            }
        }
        return builder.build()
    }

    /// The change set that inserts (or deletes) every section and entity of `storage`: a first fetch or a
    /// reset. Built in order, so without sorting or looking entities up.
    ///
    /// - Complexity: O(*n*).
    @inlinable static func everything<Entity>(of storage: _SectionedStorage<Entity>, inserted: Bool) -> ChangeSet<
        Entity
    > {
        var changes = ChangeSet<Entity>()
        var indexPaths: [IndexPath] = []
        var ids: [Entity.ID] = []
        indexPaths.reserveCapacity(storage.count)
        ids.reserveCapacity(storage.count)
        for (sectionIndex, section) in storage.sections.enumerated() {
            for (item, slot) in section.items.enumerated() {
                indexPaths.append(IndexPath(indexes: [sectionIndex, item]))
                ids.append(slot.id)
            }
        }
        let sections = Array(0..<storage.sections.count)
        let names = storage.sections.map(\.name)
        if inserted {
            (changes.insertedSections, changes.insertedSectionNames) = (sections, names)
            (changes.insertedItems, changes.insertedItemIDs) = (indexPaths, ids)
        } else {
            (changes.deletedSections, changes.deletedSectionNames) = (sections, names)
            (changes.deletedItems, changes.deletedItemIDs) = (indexPaths, ids)
        }
        return changes
    }
}
