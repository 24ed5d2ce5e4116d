import Foundation

/// A controller change set in display-order positions, the coordinates windows are cut in: worked out once
/// per change set, for every window of the controller.
///
/// The storage before the change is gone (it was changed in place), so the old positions of what left are
/// worked out from the storage after it and the change set alone. For an old section `s` that the change
/// left, let σ be the new index of the first old section at or after `s` that survived (the number of new
/// sections if none did). The entities before σ in the new results are those before `s` in the old ones,
/// less those added before σ, plus those removed before `s`:
///
///     oldOffset(s) = newOffset(σ) − added(sections < σ) + removed(old sections < s)
///
/// - Complexity: O(*k* log *n*) for *k* entities in the change set.
@usableFromInline struct _GlobalChanges<Entity: FetchableEntity>: Sendable {
    /// An entity that left its old position (deleted or moved), with what a window needs to list it.
    @usableFromInline struct Removal: Sendable {
        @usableFromInline let position: Int
        @usableFromInline let id: Entity.ID
        @usableFromInline let sectionName: String

        @inlinable init(position: Int, id: Entity.ID, sectionName: String) {
            self.position = position
            self.id = id
            self.sectionName = sectionName
        }
    }

    /// What left its old position, ascending by old position.
    @usableFromInline var removed: [Removal] = []
    /// The new positions of what arrived at a position (inserted or moved), ascending.
    @usableFromInline var added: [Int] = []
    /// The new positions of the entities whose content changed, ascending, and their ids.
    @usableFromInline var updated: [Int] = []
    @usableFromInline var updatedIDs: [Entity.ID] = []
    /// The ids of the entities the change set moved and updated: those whose own events changed them, which
    /// move when several minimal sets of moves exist.
    @usableFromInline var movedIDs: [Entity.ID] = []
    @usableFromInline var oldCount: Int
    @usableFromInline var newCount: Int

    /// The positions of `changes`, which turned the results into `storage`.
    @inlinable init(_ changes: ChangeSet<Entity>, after storage: _SectionedStorage<Entity>) {
        newCount = storage.count
        // The offset of the last section asked for: the positions of one section come together.
        var last = (section: -1, offset: 0)
        func newOffset(_ section: Int) -> Int {
            if section == storage.sections.count { return storage.count }
            if section != last.section { last = (section, storage.sections.weight(before: section)) }
            return last.offset
        }
        var addedPaths = changes.insertedItems
        if !changes.movedItems.isEmpty {
            addedPaths.append(contentsOf: changes.movedItems.map(\.to))
            addedPaths.sort()
        }
        added = addedPaths.map { newOffset($0[0]) + $0[1] }
        oldCount = newCount - added.count + changes.deletedItems.count + changes.movedItems.count
        updated = changes.updatedItems.map { newOffset($0[0]) + $0[1] }
        updatedIDs = changes.updatedItemIDs
        movedIDs = changes.movedItemIDs
        removed = Self.removals(of: changes, addedPaths: addedPaths, storage: storage, newOffset: newOffset)
    }

    /// No change, to results of `count` entities: what a window moved over unchanged results compares.
    @inlinable init(unchangedCount count: Int) {
        (oldCount, newCount) = (count, count)
    }

    /// What left, with old positions, by the formula above.
    @inlinable static func removals(
        of changes: ChangeSet<Entity>, addedPaths: [IndexPath], storage: _SectionedStorage<Entity>,
        newOffset: (Int) -> Int
    ) -> [Removal] {
        var paths = zip(changes.deletedItems, changes.deletedItemIDs).map { (path: $0, id: $1) }
        if !changes.movedItems.isEmpty {
            paths.append(contentsOf: zip(changes.movedItems, changes.movedItemIDs).map { (path: $0.from, id: $1) })
            paths.sort { $0.path < $1.path }
        }
        guard !paths.isEmpty else { return [] }
        let deleted = changes.deletedSections
        let inserted = changes.insertedSections
        let oldSectionCount = storage.sections.count - inserted.count + deleted.count
        var result: [Removal] = []
        result.reserveCapacity(paths.count)
        // Walks the old sections in ascending order, with pointers into the sorted section lists.
        var deletedBefore = 0
        var insertedThrough = 0
        var section = -1
        var offset = 0
        var name = ""
        for (index, removal) in paths.enumerated() {
            if removal.path[0] != section {
                section = removal.path[0]
                var survivor = section
                while deletedBefore < deleted.count && deleted[deletedBefore] < survivor { deletedBefore += 1 }
                var deletedScan = deletedBefore
                while deletedScan < deleted.count && deleted[deletedScan] == survivor {
                    survivor += 1
                    deletedScan += 1
                }
                let newSection: Int
                if survivor >= oldSectionCount {
                    newSection = storage.sections.count
                } else {
                    // The survivor's rank among surviving old sections, then that rank among new sections
                    // that were not inserted.
                    var candidate = survivor - deletedScan
                    while insertedThrough < inserted.count && inserted[insertedThrough] <= candidate + insertedThrough {
                        insertedThrough += 1
                    }
                    candidate += insertedThrough
                    newSection = candidate
                }
                let addedBefore = addedPaths.partitioningIndex { $0[0] >= newSection }
                offset = newOffset(newSection) - addedBefore + index
                let position = deleted.partitioningIndex { $0 >= section }
                if position < deleted.count && deleted[position] == section {
                    name = changes.deletedSectionNames[position]
                } else {
                    name = storage.sections[newSection].name
                }
            }
            result.append(Removal(position: offset + removal.path[1], id: removal.id, sectionName: name))
        }
        return result
    }

    /// The number of entities removed from old positions before `position`.
    @inlinable func removedCount(before position: Int) -> Int {
        removed.partitioningIndex { $0.position >= position }
    }

    /// The number of entities added at new positions before `position`.
    @inlinable func addedCount(before position: Int) -> Int {
        added.partitioningIndex { $0 >= position }
    }

    /// The old position of the untouched entity of rank `rank` (the number of untouched entities before it):
    /// the rank plus the removals before it, those after fewer than `rank` + 1 untouched entities.
    ///
    /// - Complexity: O(log *k*).
    @inlinable func oldPosition(ofUntouched rank: Int) -> Int {
        rank + removed.indices.partitioningIndex { removed[$0].position - $0 > rank }
    }

    /// The new position of the untouched entity of rank `rank`: the rank plus the additions before it.
    ///
    /// - Complexity: O(log *k*).
    @inlinable func newPosition(ofUntouched rank: Int) -> Int {
        rank + added.indices.partitioningIndex { added[$0] - $0 > rank }
    }

    /// The smallest position the change set removed from (old) or added at (new), or `nil` when it only
    /// changed content: no window before it changes, but for where the results end.
    @inlinable var firstShifted: Int? {
        switch (removed.first?.position, added.first) {
        case (let removed?, let added?): Swift.min(removed, added)
        case (let removed?, nil): removed
        case (nil, let added?): added
        case (nil, nil): nil
        }
    }
}

extension RandomAccessCollection where Index == Int {
    /// The first index whose element satisfies `belongs`, which must be false for a prefix of the
    /// collection and true for the rest; `endIndex` if none does.
    ///
    /// - Complexity: O(log *n*).
    @inlinable func partitioningIndex(where belongs: (Element) -> Bool) -> Int {
        var (low, high) = (startIndex, endIndex)
        while low < high {
            let middle = low + (high - low) / 2
            if belongs(self[middle]) { high = middle } else { low = middle + 1 }
        }
        return low
    }
}
