import Foundation

/// A window's change set from its controller's: what entered and left the window's positions, whatever
/// moved it, and the moves among what stayed.
@usableFromInline enum _WindowDiff {
    /// The change set of the window that held `old` positions before `changes` and holds `new` positions of
    /// `storage` after them; empty when its contents did not change.
    ///
    /// - Complexity: O(log *k*) for a window that the change set does not change; O(*k*′ log *n*) for one it
    ///   changes only in content (*k*′ entities); O(*w* log *n*) for a window of *w* entities otherwise.
    @inlinable static func changeSet<Entity>(
        _ changes: _GlobalChanges<Entity>, from old: Range<Int>, to new: Range<Int>,
        in storage: _SectionedStorage<Entity>
    ) -> ChangeSet<Entity> {
        let removedBefore = (changes.removedCount(before: old.lowerBound), changes.removedCount(before: old.upperBound))
        let addedBefore = (changes.addedCount(before: new.lowerBound), changes.addedCount(before: new.upperBound))
        let keepsItsEntities =
            removedBefore.0 == removedBefore.1 && addedBefore.0 == addedBefore.1
            && old.lowerBound - removedBefore.0 == new.lowerBound - addedBefore.0
            && old.upperBound - removedBefore.1 == new.upperBound - addedBefore.1
        if keepsItsEntities {
            return contentChanges(changes, in: new, of: storage)
        }
        return listDiff(changes, from: old, to: new, in: storage)
    }

    /// The updates of a window whose entities stay where they were.
    @inlinable static func contentChanges<Entity>(
        _ changes: _GlobalChanges<Entity>, in window: Range<Int>, of storage: _SectionedStorage<Entity>
    ) -> ChangeSet<Entity> {
        let first = changes.updated.partitioningIndex { $0 >= window.lowerBound }
        let end = changes.updated.partitioningIndex { $0 >= window.upperBound }
        var result = ChangeSet<Entity>()
        guard first < end else { return result }
        let slice = _WindowSlice(window, in: storage)
        for index in first..<end {
            let path = storage.indexPath(atGlobalIndex: changes.updated[index])
            result.updatedItems.append(slice.windowIndexPath(of: path)!)
            result.updatedItemIDs.append(changes.updatedIDs[index])
        }
        return result
    }

    /// One window's entities in order, with their sections' names, and each entity's index path in the window.
    @usableFromInline struct Listing<ID: Hashable> {
        @usableFromInline var ids: [ID] = []
        @usableFromInline var sectionNames: [String] = []
        @usableFromInline var paths: [IndexPath] = []

        @inlinable init() {}

        @inlinable mutating func append(_ id: ID, inSection name: String) {
            if let last = sectionNames.last, let lastPath = paths.last, last == name {
                paths.append(IndexPath(_section: lastPath[0], item: lastPath[1] + 1))
            } else {
                paths.append(IndexPath(_section: (paths.last?[0] ?? -1) + 1, item: 0))
            }
            ids.append(id)
            sectionNames.append(name)
        }

        /// The names of the window's sections, with each one's index.
        @inlinable var sections: [String: Int] {
            var result: [String: Int] = [:]
            for (name, path) in zip(sectionNames, paths) where path[1] == 0 { result[name] = path[0] }
            return result
        }
    }

    /// The change set between the window's entities before and after, listed.
    @inlinable static func listDiff<Entity>(
        _ changes: _GlobalChanges<Entity>, from old: Range<Int>, to new: Range<Int>,
        in storage: _SectionedStorage<Entity>
    ) -> ChangeSet<Entity> {
        let before = oldListing(changes, old, storage)
        var after = Listing<Entity.ID>()
        storage.forEachSlot(inGlobalRange: new) { id, section in after.append(id, inSection: section.name) }
        var builder = _ChangeSetBuilder<Entity>()
        let (oldSections, newSections) = (before.sections, after.sections)
        for (name, index) in oldSections where newSections[name] == nil { builder.deleteSection(index, name: name) }
        for (name, index) in newSections where oldSections[name] == nil { builder.insertSection(index, name: name) }
        var oldPositions = [Entity.ID: Int](minimumCapacity: before.ids.count)
        for (position, id) in before.ids.enumerated() { oldPositions[id] = position }
        var survivors = Set<Entity.ID>()
        // Survivors that stayed in their section, in new order: the ones among which moves are minimal.
        var stayed: [(old: Int, new: Int)] = []
        for (position, id) in after.ids.enumerated() {
            guard let oldPosition = oldPositions[id] else {
                builder.insert(id, at: after.paths[position])
                continue
            }
            survivors.insert(id)
            if before.sectionNames[oldPosition] == after.sectionNames[position] {
                stayed.append((oldPosition, position))
            } else {
                builder.move(id, from: before.paths[oldPosition], to: after.paths[position])
            }
        }
        for (position, id) in before.ids.enumerated() where !survivors.contains(id) {
            builder.delete(id, at: before.paths[position])
        }
        // In old order, keep the most (then the most untouched) with increasing new positions.
        stayed.sort { $0.old < $1.old }
        let touched = Set(changes.movedIDs).union(changes.updatedIDs)
        let kept = _MinimalMoves.kept(
            newKeys: stayed.map(\.new),
            weights: stayed.map {
                _MinimalMoves.Weight(kept: 1, stationary: touched.contains(after.ids[$0.new]) ? 0 : 1)
            })
        for (pair, isKept) in zip(stayed, kept) where !isKept {
            builder.move(after.ids[pair.new], from: before.paths[pair.old], to: after.paths[pair.new])
        }
        let first = changes.updated.partitioningIndex { $0 >= new.lowerBound }
        let end = changes.updated.partitioningIndex { $0 >= new.upperBound }
        for index in first..<end where survivors.contains(changes.updatedIDs[index]) {
            builder.update(changes.updatedIDs[index], at: after.paths[changes.updated[index] - new.lowerBound])
        }
        return builder.build()
    }

    /// The window's entities before the change: those that left positions in `old` (the change set names
    /// them), and between them the untouched ones, which are where they were relative to each other, and in
    /// the storage now.
    @inlinable static func oldListing<Entity>(
        _ changes: _GlobalChanges<Entity>, _ old: Range<Int>, _ storage: _SectionedStorage<Entity>
    ) -> Listing<Entity.ID> {
        var listing = Listing<Entity.ID>()
        guard !old.isEmpty else { return listing }
        var removal = changes.removedCount(before: old.lowerBound)
        let removalEnd = changes.removedCount(before: old.upperBound)
        let untouchedCount = old.count - (removalEnd - removal)
        // The untouched entities of the old window have consecutive ranks among untouched entities; the
        // first one's new position is its rank plus the entities added before it.
        var untouched: [(id: Entity.ID, name: String)] = []
        untouched.reserveCapacity(untouchedCount)
        if untouchedCount > 0 {
            let rank = old.lowerBound - removal
            let addedBefore = changes.added.enumerated().map { $0.element - $0.offset }.partitioningIndex { $0 > rank }
            var added = addedBefore
            var position = rank + addedBefore
            while untouched.count < untouchedCount {
                // A run of untouched positions up to the next added one.
                let runEnd = Swift.min(
                    added < changes.added.count ? changes.added[added] : storage.count,
                    position + untouchedCount - untouched.count)
                storage.forEachSlot(inGlobalRange: position..<runEnd) { id, section in
                    untouched.append((id, section.name))
                }
                position = runEnd
                while added < changes.added.count && changes.added[added] == position {
                    added += 1
                    position += 1
                }
            }
        }
        var next = 0
        for position in old {
            if removal < removalEnd && changes.removed[removal].position == position {
                listing.append(changes.removed[removal].id, inSection: changes.removed[removal].sectionName)
                removal += 1
            } else {
                listing.append(untouched[next].id, inSection: untouched[next].name)
                next += 1
            }
        }
        return listing
    }
}

extension _SectionedStorage {
    /// Calls `body` with the id and the section of each entity at a range of display-order positions, in order.
    ///
    /// - Complexity: O(log *n* + *k*) for *k* positions.
    @inlinable func forEachSlot(inGlobalRange range: Range<Int>, _ body: (Entity.ID, Section) -> Void) {
        guard !range.isEmpty else { return }
        var (section, item) = sections.position(ofWeight: range.lowerBound)
        var remaining = range.count
        var sectionIterator = sections.makeIterator(from: section)
        while remaining > 0, let current = sectionIterator.next() {
            var slots = current.items.makeIterator(from: item)
            var taken = 0
            while taken < remaining, let slot = slots.next() {
                body(slot.id, current)
                taken += 1
            }
            remaining -= taken
            (section, item) = (section + 1, 0)
        }
    }
}
