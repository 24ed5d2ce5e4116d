import Foundation

extension _ReplicaStorage where Entity: Codable {
    /// Applies a change set by the contract of ``ChangeSet``, checking each step against these results;
    /// when a step does not fit, undoes the steps before it and throws.
    ///
    /// The results change in place: a copy to fall back on would make every change copy the nodes on its
    /// path, which costs more than the change.
    ///
    /// - Returns: The change set, with the ids and section names these results give it.
    /// - Throws: ``_ReplicaError`` naming the first position, section or id that does not fit; the results
    ///   are then as they were (their labels may differ, which only orders them).
    /// - Complexity: O(*k* log *n*) amortized for *k* changes.
    @inlinable mutating func apply(_ changes: ResultsUpdate<Entity>.Changes) throws(_ReplicaError) -> ChangeSet<Entity>
    {
        var undo: [_ReplicaUndo<Entity>] = []
        do {
            return try apply(changes, recordingIn: &undo)
        } catch {
            for step in undo.reversed() { self.undo(step) }
            throw error
        }
    }

    /// Reverses one step of ``apply(_:)``.
    @inlinable mutating func undo(_ step: _ReplicaUndo<Entity>) {
        switch step {
        case .slotRemoved(let entity, let indexPath): insert(entity, at: indexPath)
        case .recordChanged(let stored): storage.records.updateValue(stored)
        case .sectionRemoved(let name, let index):
            storage.sections.insert(Section(name: name, items: _Tree()), at: index)
        case .sectionInserted(let index): storage.sections.remove(at: index)
        case .arrived(let indexPath, let id, let previous):
            removeSlot(at: indexPath)
            if let previous {
                storage.records.updateValue(previous)
            } else {
                storage.records.removeValue(forKey: id)
            }
        }
    }

    /// ``apply(_:)``, recording in `undo` how to reverse each step taken.
    @inlinable mutating func apply(
        _ changes: ResultsUpdate<Entity>.Changes, recordingIn undo: inout [_ReplicaUndo<Entity>]
    ) throws(_ReplicaError) -> ChangeSet<Entity> {
        var result = ChangeSet<Entity>()
        try Self.checkPositions(changes)
        try Self.checkAscending(changes.deletedSections.map { IndexPath(_section: $0, item: 0) }, "deleted sections")
        try Self.checkAscending(
            changes.insertedSections.map { IndexPath(_section: $0.index, item: 0) }, "inserted sections")
        try Self.checkAscending(changes.deletedItems, "deleted items")
        try Self.checkAscending(changes.insertedItems.map(\.indexPath), "inserted items")
        try Self.checkAscending(changes.updatedItems.map(\.indexPath), "updated items")

        // 1. The items deleted and moved away leave, last first so that earlier coordinates hold.
        var moved: [Entity] = []
        moved.reserveCapacity(changes.movedItems.count)
        for move in changes.movedItems {
            guard let id = id(at: move.from) else { throw _ReplicaError("no item at \(Self.path(move.from)) to move") }
            moved.append(storage.records[id]!.entity)
            result.movedItemIDs.append(id)
        }
        for indexPath in changes.deletedItems {
            guard let id = id(at: indexPath) else {
                throw _ReplicaError("no item at \(Self.path(indexPath)) to delete")
            }
            result.deletedItemIDs.append(id)
        }
        let removals = changes.deletedItems + changes.movedItems.map(\.from)
        try Self.checkDistinct(removals, "an item is deleted or moved twice")
        for indexPath in removals.sorted(by: >) {
            undo.append(.slotRemoved(storage.records[id(at: indexPath)!]!.entity, at: indexPath))
            removeSlot(at: indexPath)
        }
        for id in result.deletedItemIDs {
            undo.append(.recordChanged(storage.records.removeValue(forKey: id)!))
        }

        // 2. The deleted sections, empty now, leave.
        for section in changes.deletedSections.reversed() {
            guard section < storage.sections.count else { throw _ReplicaError("no section \(section) to delete") }
            guard storage.sections[section].items.isEmpty else {
                throw _ReplicaError("section \(section) is deleted but keeps items")
            }
            let name = storage.sections.remove(at: section).name
            undo.append(.sectionRemoved(name, at: section))
            result.deletedSectionNames.append(name)
        }
        result.deletedSectionNames.reverse()

        // 3. The inserted sections arrive empty.
        for section in changes.insertedSections {
            guard section.index <= storage.sections.count else {
                throw _ReplicaError("section \(section.index) is inserted past the end")
            }
            storage.sections.insert(Section(name: section.name, items: _Tree()), at: section.index)
            undo.append(.sectionInserted(at: section.index))
            result.insertedSectionNames.append(section.name)
        }

        // 4. The items inserted and moved here arrive, first first.
        let arrivals =
            changes.insertedItems.enumerated().map { (indexPath: $0.element.indexPath, inserted: $0.offset, moved: -1) }
            + changes.movedItems.enumerated().map { (indexPath: $0.element.to, inserted: -1, moved: $0.offset) }
        try Self.checkDistinct(arrivals.map(\.indexPath), "two items arrive at one place")
        for arrival in arrivals.sorted(by: { $0.indexPath < $1.indexPath }) {
            let (section, item) = (arrival.indexPath[0], arrival.indexPath[1])
            guard section < storage.sections.count, item <= storage.sections[section].items.count else {
                throw _ReplicaError("no place \(Self.path(arrival.indexPath)) to insert at")
            }
            let entity = arrival.moved >= 0 ? moved[arrival.moved] : changes.insertedItems[arrival.inserted].entity
            if arrival.inserted >= 0 {
                guard storage.records[entity.id] == nil else {
                    throw _ReplicaError("inserted id \(entity.id) is shown already")
                }
                result.insertedItemIDs.append(entity.id)
            }
            undo.append(.arrived(at: arrival.indexPath, id: entity.id, previous: storage.records[entity.id]))
            insert(entity, at: arrival.indexPath)
        }
        try checkNoEmptySections(after: changes, removals: removals)

        // 5. The updated items get their new content.
        for update in changes.updatedItems {
            guard let id = id(at: update.indexPath), let stored = storage.records[id] else {
                throw _ReplicaError("no item at \(Self.path(update.indexPath)) to update")
            }
            guard id == update.entity.id else {
                throw _ReplicaError(
                    "the update at \(Self.path(update.indexPath)) is for id \(update.entity.id), not \(id)")
            }
            undo.append(.recordChanged(stored))
            storage.records.updateValue(_StoredEntity(entity: update.entity, sequence: stored.sequence))
            result.updatedItemIDs.append(id)
        }

        result.deletedSections = changes.deletedSections
        result.insertedSections = changes.insertedSections.map(\.index)
        result.deletedItems = changes.deletedItems
        result.insertedItems = changes.insertedItems.map(\.indexPath)
        result.movedItems = changes.movedItems
        result.updatedItems = changes.updatedItems.map(\.indexPath)
        return result
    }

    /// Checks that no section that lost items or was inserted is left empty.
    @inlinable func checkNoEmptySections(
        after changes: ResultsUpdate<Entity>.Changes, removals: [IndexPath]
    ) throws(_ReplicaError) {
        let deleted = changes.deletedSections
        let inserted = changes.insertedSections.map(\.index)
        var touched = Set(inserted)
        for oldSection in Set(removals.map { $0[0] }) where !deleted.contains(oldSection) {
            // Its index once the deleted sections left, then once the inserted ones arrived.
            var section = oldSection - deleted.count(where: { $0 < oldSection })
            for index in inserted where index <= section { section += 1 }
            touched.insert(section)
        }
        for section in touched where storage.sections[section].items.isEmpty {
            throw _ReplicaError("section \(section) is left empty")
        }
    }

    /// Checks that every section index is non-negative and every index path is a non-negative
    /// `[section, item]`: what the JSON form guarantees, and an update made in code may not.
    @inlinable static func checkPositions(_ changes: ResultsUpdate<Entity>.Changes) throws(_ReplicaError) {
        if let section = changes.deletedSections.first(where: { $0 < 0 }) {
            throw _ReplicaError("no section \(section) to delete")
        }
        if let section = changes.insertedSections.first(where: { $0.index < 0 }) {
            throw _ReplicaError("section \(section.index) is inserted before the first")
        }
        func check(_ indexPath: IndexPath) throws(_ReplicaError) {
            guard indexPath.count == 2, indexPath[0] >= 0, indexPath[1] >= 0 else {
                throw _ReplicaError("\(Array(indexPath)) is not a position [section, item]")
            }
        }
        for indexPath in changes.deletedItems { try check(indexPath) }
        for item in changes.insertedItems { try check(item.indexPath) }
        for move in changes.movedItems {
            try check(move.from)
            try check(move.to)
        }
        for item in changes.updatedItems { try check(item.indexPath) }
    }

    @inlinable static func checkAscending(_ indexPaths: [IndexPath], _ what: String) throws(_ReplicaError) {
        for (earlier, later) in zip(indexPaths, indexPaths.dropFirst()) where !(earlier < later) {
            throw _ReplicaError("\(what) are not in ascending order")
        }
    }

    @inlinable static func checkDistinct(_ indexPaths: [IndexPath], _ problem: String) throws(_ReplicaError) {
        guard indexPaths.count > 1 else { return }
        let sorted = indexPaths.sorted()
        for (earlier, later) in zip(sorted, sorted.dropFirst()) where earlier == later {
            throw _ReplicaError("\(problem): \(path(earlier))")
        }
    }

    @inlinable static func path(_ indexPath: IndexPath) -> String {
        "[\(indexPath[0]), \(indexPath[1])]"
    }
}

/// How to reverse one step of a replica's change set, in ``_ReplicaStorage/apply(_:)``.
@usableFromInline enum _ReplicaUndo<Entity: FetchableEntity>: Sendable {
    /// An entity left this place: put it back (with a new label).
    case slotRemoved(Entity, at: IndexPath)
    /// A record was removed or replaced: restore it.
    case recordChanged(_StoredEntity<Entity>)
    /// An empty section left: insert it again.
    case sectionRemoved(String, at: Int)
    /// A section was inserted: remove it.
    case sectionInserted(at: Int)
    /// An entity arrived here: remove it, and restore the record it replaced, or none.
    case arrived(at: IndexPath, id: Entity.ID, previous: _StoredEntity<Entity>?)
}
