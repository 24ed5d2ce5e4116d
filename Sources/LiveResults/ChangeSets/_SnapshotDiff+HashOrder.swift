/// The diff of a refetch, pairing old and new entities in hash order.
extension _SnapshotDiff {
    /// The change set between `old` and `new`, which ``_SectionedStorage/built(ordering:contents:keepingHashOrder:)``
    /// just built from `contents`, placing them as `placed` and listing them in the hash order of the
    /// records as `hashOrder`.
    ///
    /// - Complexity: O(*n*): see ``matchInHashOrder(old:_:to:_:builtFrom:placed:hashOrder:)``, then
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
            old: old, oldLayout, to: new, newLayout, builtFrom: contents, placed: placed, hashOrder: hashOrder)
        return changeSet(from: oldLayout, to: newLayout, match: match)
    }

    /// Pairs the old entities with the new ones by merging two walks in hash order, and tells which
    /// changed.
    ///
    /// Both tries are walked in hash order (``_HashTrie/makeHashOrderIterator()``). Beside the old
    /// walk go the old positions, sorted into the same order by a radix sort of their hashes; beside
    /// the new walk go the new entities' indices in `contents`, which the build left in that order. So
    /// each old id is hashed once and every entity is read in the order its trie holds it, where pairing
    /// through a hash table hashes each id three times and reads one side in an order unrelated to it.
    ///
    /// - Complexity: O(*n*) expected: a radix sort of the old positions, then one merge; entities
    ///   whose whole hashes are equal are paired among themselves by id.
    @inlinable static func matchInHashOrder<Entity, Contents: RandomAccessCollection<_StoredEntity<Entity>>>(
        old: _SectionedStorage<Entity>,
        _ oldLayout: _SnapshotLayout<Entity.ID>,
        to new: _SectionedStorage<Entity>,
        _ newLayout: _SnapshotLayout<Entity.ID>,
        builtFrom contents: Contents,
        placed: [_SortEntry],
        hashOrder newOrder: [_HashedIndex]
    ) -> _SnapshotMatch where Contents.Index == Int {
        typealias Records = _HashTrie<Entity.ID, _StoredEntity<Entity>>
        precondition(newOrder.count == contents.count && new.count == contents.count, "the new entities in hash order")
        // Radix-sorted on the high half of the key (the low half waits in `section`), then finished:
        // among random keys, hardly any share a high half.
        var oldOrder = [_SortEntry]()
        oldOrder.reserveCapacity(oldLayout.count)
        for (position, id) in oldLayout.ids.enumerated() {
            let key = Records.hashOrderKey(of: Records.hash(id))
            oldOrder.append(
                _SortEntry(key: key >> 32, section: UInt32(truncatingIfNeeded: key), index: UInt32(position)))
        }
        _RadixSort.sortByKey(&oldOrder, bits: 32)
        for index in oldOrder.indices {
            oldOrder[index].key = oldOrder[index].key << 32 | UInt64(oldOrder[index].section)
        }
        oldOrder._sortNearlySorted(by: \.key)
        var newPositions = [Int32](repeating: 0, count: placed.count)
        for (position, entry) in placed.enumerated() { newPositions[Int(entry.index)] = Int32(position) }
        var match = _SnapshotMatch(oldCount: oldLayout.count, newCount: newLayout.count)
        var (oldWalk, newWalk) = (old.records.makeHashOrderIterator(), new.records.makeHashOrderIterator())
        var (oldIndex, newIndex) = (0, 0)
        while oldIndex < oldOrder.count && newIndex < newOrder.count {
            let (oldKey, newKey) = (oldOrder[oldIndex].key, newOrder[newIndex].hash)
            if oldKey != newKey {
                // An id of one side only: deleted or inserted.
                if oldKey < newKey {
                    _ = oldWalk.next()
                    oldIndex += 1
                } else {
                    _ = newWalk.next()
                    newIndex += 1
                }
                continue
            }
            var (oldEnd, newEnd) = (oldIndex + 1, newIndex + 1)
            while oldEnd < oldOrder.count && oldOrder[oldEnd].key == oldKey { oldEnd += 1 }
            while newEnd < newOrder.count && newOrder[newEnd].hash == newKey { newEnd += 1 }
            typealias Walked = UnsafePointer<_StoredEntity<Entity>>
            func pair(_ stored: Walked, _ newStored: Walked, oldPosition: UInt32, newIndex: Int) {
                match.pair(
                    old: Int(oldPosition), new: Int(newPositions[newIndex - contents.startIndex]),
                    changed: newStored.pointee.entity != stored.pointee.entity)
            }
            if oldEnd - oldIndex == 1 && newEnd - newIndex == 1 {
                // One entity a side, as nearly always: the walks and the lists agree.
                let (stored, newStored) = (oldWalk.next()!, newWalk.next()!)
                if stored.pointee.entity.id == newStored.pointee.entity.id {
                    pair(
                        stored, newStored, oldPosition: oldOrder[oldIndex].index,
                        newIndex: newOrder[newIndex].index)
                }
            } else {
                // Whole hashes are equal, and the walks meet those entities in no particular order:
                // find each one's place by id.
                let olds = (oldIndex..<oldEnd).map { _ in oldWalk.next()! }
                let news = (newIndex..<newEnd).map { _ in newWalk.next()! }
                for stored in olds {
                    let id = stored.pointee.entity.id
                    guard let newStored = news.first(where: { $0.pointee.entity.id == id }) else { continue }
                    pair(
                        stored, newStored,
                        oldPosition: oldOrder[oldIndex..<oldEnd].first { oldLayout.ids[Int($0.index)] == id }!.index,
                        newIndex: newOrder[newIndex..<newEnd].first { contents[$0.index].entity.id == id }!.index)
                }
            }
            (oldIndex, newIndex) = (oldEnd, newEnd)
        }
        return match
    }
}
