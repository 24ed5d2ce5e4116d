/// The diff of a refetch, pairing old and new entities in hash order.
extension _SnapshotDiff {
    /// The change set between `old` and `new`, which ``_SectionedStorage/built(ordering:contents:keepingHashOrder:)``
    /// just built from `contents`, placing them as `placed` and listing them in the hash order of the
    /// records as `hashOrder`.
    ///
    /// - Complexity: O(*n*): see ``matchInHashOrder(old:_:to:builtFrom:placed:hashOrder:)``, then
    ///   ``changeSet(from:to:match:)``.
    @inlinable static func changeSet<Entity, Contents: RandomAccessCollection<_StoredEntity<Entity>>>(
        from old: _SectionedStorage<Entity>,
        to new: _SectionedStorage<Entity>,
        builtFrom contents: Contents,
        placed: [_SortEntry],
        hashOrder: [_HashedIndex]
    ) -> ChangeSet<Entity> where Contents.Index == Int {
        if old.count == 0 || new.count == 0 {
            return everything(of: old.count == 0 ? new : old, inserted: old.count == 0)
        }
        let (oldLayout, newLayout) = (_SnapshotLayout(old), _SnapshotLayout(new))
        let match = matchInHashOrder(
            old: old, oldLayout, to: newLayout, builtFrom: contents, placed: placed, hashOrder: hashOrder)
        return changeSet(from: oldLayout, to: newLayout, match: match)
    }

    /// Pairs the old entities with the new ones by merging two lists in hash order, and tells which
    /// changed.
    ///
    /// The old records are walked in hash order (``_HashTrie/forEachInHashOrder(_:)``), beside the old
    /// positions sorted into the same order; the new entities come in that order from the build. So
    /// each id is hashed once, for the old positions, where pairing through a hash table hashes it
    /// three times (a table of the old positions, looked up by every new id and every old record) and
    /// reads the old entities in an order unrelated to either side.
    ///
    /// - Complexity: O(*n*) expected: a radix sort of the old positions, then one merge.
    @inlinable static func matchInHashOrder<Entity, Contents: RandomAccessCollection<_StoredEntity<Entity>>>(
        old: _SectionedStorage<Entity>,
        _ oldLayout: _SnapshotLayout<Entity.ID>,
        to newLayout: _SnapshotLayout<Entity.ID>,
        builtFrom contents: Contents,
        placed: [_SortEntry],
        hashOrder newOrder: [_HashedIndex]
    ) -> _SnapshotMatch where Contents.Index == Int {
        typealias Records = _HashTrie<Entity.ID, _StoredEntity<Entity>>
        precondition(newOrder.count == contents.count, "the new entities in hash order")
        var oldOrder = [_SortEntry]()
        oldOrder.reserveCapacity(oldLayout.count)
        for (position, id) in oldLayout.ids.enumerated() {
            oldOrder.append(
                _SortEntry(key: Records.hashOrderKey(of: Records.hash(id)), section: 0, index: UInt32(position)))
        }
        _RadixSort.sortByKey(&oldOrder, bits: 64)
        var newPositions = [Int32](repeating: 0, count: placed.count)
        for (position, entry) in placed.enumerated() { newPositions[Int(entry.index)] = Int32(position) }
        var match = _SnapshotMatch(oldCount: oldLayout.count, newCount: newLayout.count)
        var (oldCursor, newCursor) = (0, 0)
        old.records.forEachInHashOrder { stored in
            let id = stored.entity.id
            // Values of equal whole hashes come in no particular order: find this one's among them.
            var oldIndex = oldCursor
            while oldLayout.ids[Int(oldOrder[oldIndex].index)] != id { oldIndex += 1 }
            oldOrder.swapAt(oldCursor, oldIndex)
            let (key, oldPosition) = (oldOrder[oldCursor].key, Int(oldOrder[oldCursor].index))
            oldCursor += 1
            while newCursor < newOrder.count && newOrder[newCursor].hash < key { newCursor += 1 }
            var newIndex = newCursor
            while newIndex < newOrder.count && newOrder[newIndex].hash == key {
                let offset = newOrder[newIndex].index - contents.startIndex
                let entity = contents[contents.startIndex + offset].entity
                if entity.id == id {
                    match.pair(old: oldPosition, new: Int(newPositions[offset]), changed: entity != stored.entity)
                    break
                }
                newIndex += 1
            }
        }
        return match
    }
}
