import Foundation

/// What changed since the version the observers last received, while change sets are held back from
/// them (the controller is paused, or inside a coalescing interval). The change set they get next is
/// composed from the two versions (see ``_VersionDiff``), not from the change sets held.
@usableFromInline struct _HeldChanges<Entity: FetchableEntity>: Sendable {
    /// How a held change set came about, which decides how it is composed.
    @usableFromInline enum Kind: Sendable {
        /// Events or a page: the storage changed entity by entity.
        case events
        /// A fetch, a resort or a reset: the storage was built anew.
        case rebuild
        /// Associated values arrived or were dropped: entities reported updated with equal content.
        case values
    }

    /// The version the observers have.
    @usableFromInline let base: _SectionedStorage<Entity>
    @usableFromInline var isRebuilt = false
    /// Entities reported updated for their associated values since `base`, which a comparison of the
    /// two versions cannot see.
    @usableFromInline var valueUpdates: Set<Entity.ID> = []
    /// Whether anything changed since `base`.
    @usableFromInline var isEmpty = true

    @inlinable init(base: _SectionedStorage<Entity>) {
        self.base = base
    }

    @inlinable mutating func hold(_ changes: ChangeSet<Entity>, _ kind: Kind) {
        isEmpty = false
        switch kind {
        case .events: break
        case .rebuild: isRebuilt = true
        case .values: valueUpdates.formUnion(changes.updatedItemIDs)
        }
    }

    /// The one change set that turns `base` into `current`.
    ///
    /// - Complexity: O(*k* log *n*) for the *k* entities whose stored version differs and those whose
    ///   associated values changed; O(*n*) if the storage was rebuilt since `base`.
    @inlinable func changeSet(to current: _SectionedStorage<Entity>) -> ChangeSet<Entity> {
        guard !isEmpty else { return ChangeSet() }
        var changes = _VersionDiff.changeSet(from: base, to: current, isRebuilt: isRebuilt)
        guard !valueUpdates.isEmpty else { return changes }
        let updated = Set(changes.updatedItemIDs)
        var extra: [(indexPath: IndexPath, id: Entity.ID)] = []
        for id in valueUpdates where !updated.contains(id) && base.stored(forID: id) != nil {
            if let indexPath = current.indexPath(forID: id) { extra.append((indexPath, id)) }
        }
        changes.mergeUpdates(extra.sorted { $0.indexPath < $1.indexPath })
        return changes
    }
}

extension ChangeSet {
    /// Adds updates, sorted by index path and not listed yet, keeping ``updatedItems`` ascending.
    @inlinable mutating func mergeUpdates(_ extra: [(indexPath: IndexPath, id: Entity.ID)]) {
        guard !extra.isEmpty else { return }
        var merged: [(indexPath: IndexPath, id: Entity.ID)] = []
        merged.reserveCapacity(updatedItems.count + extra.count)
        var (mine, theirs) = (0, 0)
        while mine < updatedItems.count || theirs < extra.count {
            if theirs == extra.count || (mine < updatedItems.count && updatedItems[mine] < extra[theirs].indexPath) {
                merged.append((updatedItems[mine], updatedItemIDs[mine]))
                mine += 1
            } else {
                merged.append(extra[theirs])
                theirs += 1
            }
        }
        updatedItems = merged.map(\.indexPath)
        updatedItemIDs = merged.map(\.id)
    }
}
