import Foundation

/// The change set between two whole storages, matched by id: used by refetch, resort and reset.
///
/// Entities whose content did not change are preferred as the ones that stay, so among minimal sets of
/// moves the changed entities are the ones that move.
@usableFromInline enum _SnapshotDiff {
    /// The change set between two storages.
    ///
    /// - Parameter newInHashOrder: The positions of `new`'s entities in hash order, if the caller has
    ///   them (a refetch's build leaves them; see ``positionsInHashOrder(built:placed:)``); otherwise
    ///   they are found from `new`'s layout.
    /// - Complexity: O(*n*) expected for *n* entities (see ``matchInHashOrder(old:_:_:to:_:_:)``), plus
    ///   O(*m* log *m*) for *m* runs of entities that kept their order: see ``changeSet(from:to:match:)``.
    @inlinable static func changeSet<Entity>(
        from old: _SectionedStorage<Entity>,
        to new: _SectionedStorage<Entity>,
        newInHashOrder: [_SortEntry]? = nil
    ) -> ChangeSet<Entity> {
        if old.count == 0 || new.count == 0 {
            return everything(of: old.count == 0 ? new : old, inserted: old.count == 0)
        }
        let (oldLayout, newLayout) = (_SnapshotLayout(old), _SnapshotLayout(new))
        let match = matchInHashOrder(
            old: old, oldLayout, positionsInHashOrder(of: oldLayout, in: old),
            to: new, newLayout, newInHashOrder ?? positionsInHashOrder(of: newLayout, in: new))
        return changeSet(from: oldLayout, to: newLayout, match: match)
    }

    /// The change set between two layouts whose entities `match` pairs.
    ///
    /// Every array comes out in the order the contract wants, so nothing is sorted. Entities that stay
    /// in a section of the same name keep their place unless their order changed: in old order they
    /// form runs that are consecutive in the new order too, and a run is kept or moved as a whole
    /// (keeping part of a run is never better than keeping all of it), so the increasing subsequence
    /// is taken over runs, not entities.
    ///
    /// - Complexity: O(*n* + *m* log *m*) for *n* entities in *m* runs.
    @inlinable static func changeSet<Entity: FetchableEntity>(
        from old: _SnapshotLayout<Entity.ID>,
        to new: _SnapshotLayout<Entity.ID>,
        match: _SnapshotMatch
    ) -> ChangeSet<Entity> {
        var changes = ChangeSet<Entity>()
        var oldSections = [String: Int](minimumCapacity: old.sectionCount)
        for (section, name) in old.names.enumerated() { oldSections[name] = section }
        var newSections = [String: Int](minimumCapacity: new.sectionCount)
        for (section, name) in new.names.enumerated() { newSections[name] = section }
        for (section, name) in old.names.enumerated() where newSections[name] == nil {
            changes.deletedSections.append(section)
            changes.deletedSectionNames.append(name)
        }
        for (section, name) in new.names.enumerated() where oldSections[name] == nil {
            changes.insertedSections.append(section)
            changes.insertedSectionNames.append(name)
        }
        for section in 0..<old.sectionCount {
            for position in old.positions(ofSection: section) where match.newPositions[position] < 0 {
                changes.deletedItems.append(old.indexPath(of: position, inSection: section))
                changes.deletedItemIDs.append(old.ids[position])
            }
        }
        let moved = movedEntities(from: old, to: new, match: match, oldSections: oldSections)
        for section in 0..<new.sectionCount {
            for position in new.positions(ofSection: section) {
                let oldPosition = Int(match.oldPositions[position])
                guard oldPosition >= 0 else {
                    changes.insertedItems.append(new.indexPath(of: position, inSection: section))
                    changes.insertedItemIDs.append(new.ids[position])
                    continue
                }
                if moved[position] {
                    let indexPath = new.indexPath(of: position, inSection: section)
                    changes.movedItems.append(ItemMove(from: old.indexPath(of: oldPosition), to: indexPath))
                    changes.movedItemIDs.append(new.ids[position])
                }
                if match.changed[position] {
                    changes.updatedItems.append(new.indexPath(of: position, inSection: section))
                    changes.updatedItemIDs.append(new.ids[position])
                }
            }
        }
        return changes
    }

    /// Whether the entity at each new position moved: it comes from another section, or it is not
    /// among the most entities of its section that keep their order (the unchanged ones preferred).
    @inlinable static func movedEntities<ID>(
        from old: _SnapshotLayout<ID>,
        to new: _SnapshotLayout<ID>,
        match: _SnapshotMatch,
        oldSections: [String: Int]
    ) -> [Bool] {
        var moved = [Bool](repeating: false, count: new.count)
        // The rank in new order of each entity that stays in its section, among those.
        var ranks = [Int32](repeating: 0, count: new.count)
        var runRanks: [Int] = []
        var runWeights: [_MinimalMoves.Weight] = []
        var runStarts: [Int] = []
        for section in 0..<new.sectionCount {
            let positions = new.positions(ofSection: section)
            let oldPositions = oldSections[new.names[section]].map { old.positions(ofSection: $0) } ?? 0..<0
            var stayed: Int32 = 0
            for position in positions {
                let oldPosition = Int(match.oldPositions[position])
                guard oldPosition >= 0 else { continue }
                if oldPositions.contains(oldPosition) {
                    ranks[position] = stayed
                    stayed += 1
                } else {
                    moved[position] = true
                }
            }
            guard stayed > 1 else { continue }
            runRanks.removeAll(keepingCapacity: true)
            runWeights.removeAll(keepingCapacity: true)
            runStarts.removeAll(keepingCapacity: true)
            var previousRank: Int32 = -2
            for oldPosition in oldPositions {
                let position = Int(match.newPositions[oldPosition])
                guard positions.contains(position) else { continue }
                let rank = ranks[position]
                let weight = _MinimalMoves.Weight(kept: 1, stationary: match.changed[position] ? 0 : 1)
                if rank == previousRank + 1 {
                    runWeights[runWeights.count - 1] = runWeights[runWeights.count - 1] + weight
                } else {
                    runRanks.append(Int(rank))
                    runWeights.append(weight)
                    runStarts.append(oldPosition)
                }
                previousRank = rank
            }
            guard runRanks.count > 1 else { continue }
            let kept = _MinimalMoves.kept(ranks: runRanks, rankCount: Int(stayed), weights: runWeights)
            for run in kept.indices where !kept[run] {
                let end = run + 1 < runStarts.count ? runStarts[run + 1] : oldPositions.upperBound
                for oldPosition in runStarts[run]..<end {
                    let position = Int(match.newPositions[oldPosition])
                    if positions.contains(position) { moved[position] = true }
                }
            }
        }
        return moved
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
                indexPaths.append(IndexPath(_section: sectionIndex, item: item))
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
