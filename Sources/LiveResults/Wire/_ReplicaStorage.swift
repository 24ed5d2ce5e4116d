import Foundation

/// The results of a ``ResultsReplica``: the controller's own storage, filled by position rather than by
/// an ordering rule, with a ``_PositionIndex`` to find an entity's place from its id.
///
/// Every change is made on a copy (copies share all nodes, so a copy is O(1)) that replaces the
/// replica's results only when the whole update applied: an update that does not fit leaves them as
/// they were.
@usableFromInline struct _ReplicaStorage<Entity: FetchableEntity>: Sendable {
    @usableFromInline typealias Slot = _SectionedStorage<Entity>.Slot
    @usableFromInline typealias Section = _SectionedStorage<Entity>.Section

    /// The sections and records; each record's sequence is the entity's label in `positions`.
    @usableFromInline var storage: _SectionedStorage<Entity>
    @usableFromInline var positions = _PositionIndex<Entity.ID>()

    /// A replica's storage is never searched by its ordering: this one only fills the field.
    @inlinable static var positionalOrdering: _EntityOrdering<Entity> {
        _EntityOrdering(
            sectionNameKeyPath: nil, sectionOrder: .ascending, rule: _SortRule(compare: { _, _ in .orderedSame }))
    }

    @inlinable init() {
        storage = _SectionedStorage(ordering: Self.positionalOrdering)
    }

    @inlinable var snapshot: FetchedResultsSnapshot<Entity> {
        FetchedResultsSnapshot(_storage: storage, _positions: positions)
    }

    /// A storage holding `sections`, in order.
    ///
    /// - Throws: ``ResultsReplica/InvalidUpdate`` for an empty section, a section name given twice, or
    ///   an id given twice.
    /// - Complexity: O(*n*).
    @inlinable init(sections: [(name: String, entities: [Entity])]) throws(_ReplicaError) {
        self.init()
        var names = Set<String>()
        var ids = Set<Entity.ID>()
        var entities: [_StoredEntity<Entity>] = []
        var built: [Section] = []
        let count = sections.reduce(0) { $0 + $1.entities.count }
        entities.reserveCapacity(count)
        for section in sections {
            guard !section.entities.isEmpty else { throw _ReplicaError("section \"\(section.name)\" is empty") }
            guard names.insert(section.name).inserted else {
                throw _ReplicaError("section \"\(section.name)\" is given twice")
            }
            var slots: [Slot] = []
            slots.reserveCapacity(section.entities.count)
            for entity in section.entities {
                guard ids.insert(entity.id).inserted else { throw _ReplicaError("id \(entity.id) is given twice") }
                let label = _PositionIndex<Entity.ID>.label(at: entities.count, of: count)
                entities.append(_StoredEntity(entity: entity, sequence: label))
                slots.append(Slot(id: entity.id, key: 0))
            }
            built.append(Section(name: section.name, items: _Tree(sorted: slots)))
        }
        storage.sections = _Tree(sorted: built)
        storage.records = _HashTrie(uniqueValues: entities)
        positions = _PositionIndex(ids: entities.lazy.map(\.entity.id))
    }

    /// The change set from `old` to these results, for a whole-results update after earlier results.
    ///
    /// Change sets do not move sections: when the sections both hold are in another order, everything
    /// is deleted and inserted.
    ///
    /// - Complexity: O(*n*).
    @inlinable func changeSet(from old: _ReplicaStorage) -> ChangeSet<Entity> {
        let newNames = storage.sections.map(\.name)
        let shared = Set(newNames)
        let oldNames = old.storage.sections.map(\.name)
        let keptInOld = oldNames.filter { shared.contains($0) }
        let oldNameSet = Set(oldNames)
        guard keptInOld == newNames.filter({ oldNameSet.contains($0) }) else {
            var changes = _SnapshotDiff.everything(of: old.storage, inserted: false)
            let inserted = _SnapshotDiff.everything(of: storage, inserted: true)
            (changes.insertedSections, changes.insertedSectionNames) = (
                inserted.insertedSections, inserted.insertedSectionNames
            )
            (changes.insertedItems, changes.insertedItemIDs) = (inserted.insertedItems, inserted.insertedItemIDs)
            return changes
        }
        return _SnapshotDiff.changeSet(from: old.storage, to: storage)
    }

    // MARK: Positional changes

    /// The id of the entity at `indexPath`, if there is one.
    ///
    /// - Complexity: O(log *n*).
    @inlinable func id(at indexPath: IndexPath) -> Entity.ID? {
        let (section, item) = (indexPath[0], indexPath[1])
        guard section < storage.sections.count, item < storage.sections[section].items.count else { return nil }
        return storage.sections[section].items[item].id
    }

    /// Removes the entity at `indexPath`, which exists, from the sections and the labels; its record stays.
    ///
    /// - Complexity: O(log *n*).
    @inlinable mutating func removeSlot(at indexPath: IndexPath) {
        let (section, item) = (indexPath[0], indexPath[1])
        positions.remove(at: storage.sections.weight(before: section) + item)
        storage.sections.modify(at: section) { _ = $0.items.remove(at: item) }
    }

    /// Places `entity` at `indexPath`, which must be a valid insertion point, and records it.
    ///
    /// - Complexity: O(log *n*) amortized.
    @inlinable mutating func insert(_ entity: Entity, at indexPath: IndexPath) {
        let (section, item) = (indexPath[0], indexPath[1])
        let id = entity.id
        storage.sections.modify(at: section) { $0.items.insert(Slot(id: id, key: 0), at: item) }
        // Taken out while it changes, so that the closure below may change the records.
        var positions = self.positions
        self.positions = _PositionIndex()
        positions.insert(id, at: storage.sections.weight(before: section) + item) { relabeled, label in
            let stored = relabeled == id ? entity : storage.records[relabeled]!.entity
            storage.records.updateValue(_StoredEntity(entity: stored, sequence: label))
        }
        self.positions = positions
    }
}

/// Why an update does not apply to a replica's results.
@usableFromInline struct _ReplicaError: Error {
    @usableFromInline let reason: String

    @usableFromInline init(_ reason: String) {
        self.reason = reason
    }
}
