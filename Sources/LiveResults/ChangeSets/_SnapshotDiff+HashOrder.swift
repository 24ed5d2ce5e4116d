/// Pairing the entities of two storages by merging walks of their records in hash order.
extension _SnapshotDiff {
    /// The positions of a layout's entities, listed in the hash order of their ids: each entry's key is
    /// ``_HashTrie/hashOrderKey(of:)`` of the id's hash, and its index the position.
    ///
    /// Radix-sorted on the high half of the key (the low half waits in `section`), then finished by an
    /// insertion sort: among random keys, hardly any share a high half.
    ///
    /// - Complexity: O(*n*) expected: one hash per id, four radix passes.
    @inlinable static func positionsInHashOrder<Entity>(
        of layout: _SnapshotLayout<Entity.ID>,
        in storage: _SectionedStorage<Entity>
    ) -> [_SortEntry] {
        typealias Records = _HashTrie<Entity.ID, _StoredEntity<Entity>>
        var order = [_SortEntry]()
        order.reserveCapacity(layout.count)
        for (position, id) in layout.ids.enumerated() {
            let key = Records.hashOrderKey(of: Records.hash(id))
            order.append(_SortEntry(key: key >> 32, section: UInt32(truncatingIfNeeded: key), index: UInt32(position)))
        }
        _RadixSort.sortByKey(&order, bits: 32)
        for index in order.indices { order[index].key = order[index].key << 32 | UInt64(order[index].section) }
        order._sortNearlySorted(by: \.key)
        return order
    }

    /// The positions of a just-built storage's entities in hash order, from what the build left:
    /// `hashOrder`, the built entities' offsets in hash order with their keys, and `placed`, what went
    /// to each position. No id is hashed again.
    ///
    /// - Complexity: O(*n*).
    @inlinable static func positionsInHashOrder(built hashOrder: [_HashedIndex], placed: [_SortEntry]) -> [_SortEntry] {
        var positions = [UInt32](repeating: 0, count: placed.count)
        for (position, entry) in placed.enumerated() { positions[Int(entry.index)] = UInt32(position) }
        return hashOrder.map { _SortEntry(key: $0.hash, section: 0, index: positions[$0.index]) }
    }

    /// Pairs the entities of two storages by merging walks of their records in hash order, and tells
    /// which changed.
    ///
    /// Both tries are walked in hash order (``_HashTrie/makeHashOrderIterator()``), each beside its
    /// positions sorted into the same order. So each id is hashed at most once and every entity is
    /// read in the order its trie holds it, where pairing through a hash table hashes each id three
    /// times and reads one side in an order unrelated to it.
    ///
    /// - Complexity: O(*n*) expected, one merge; entities whose whole hashes are equal are paired among
    ///   themselves by id.
    @inlinable static func matchInHashOrder<Entity>(
        old: _SectionedStorage<Entity>,
        _ oldLayout: _SnapshotLayout<Entity.ID>,
        _ oldOrder: [_SortEntry],
        to new: _SectionedStorage<Entity>,
        _ newLayout: _SnapshotLayout<Entity.ID>,
        _ newOrder: [_SortEntry]
    ) -> _SnapshotMatch {
        precondition(oldOrder.count == old.count && newOrder.count == new.count, "every entity in hash order")
        var match = _SnapshotMatch(oldCount: oldLayout.count, newCount: newLayout.count)
        var (oldWalk, newWalk) = (old.records.makeHashOrderIterator(), new.records.makeHashOrderIterator())
        var (oldIndex, newIndex) = (0, 0)
        while oldIndex < oldOrder.count && newIndex < newOrder.count {
            let (oldKey, newKey) = (oldOrder[oldIndex].key, newOrder[newIndex].key)
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
            while newEnd < newOrder.count && newOrder[newEnd].key == newKey { newEnd += 1 }
            typealias Walked = UnsafePointer<_StoredEntity<Entity>>
            func pair(_ stored: Walked, _ newStored: Walked, oldPosition: UInt32, newPosition: UInt32) {
                match.pair(
                    old: Int(oldPosition), new: Int(newPosition),
                    changed: newStored.pointee.entity != stored.pointee.entity)
            }
            if oldEnd - oldIndex == 1 && newEnd - newIndex == 1 {
                // One entity a side, as nearly always: the walks and the lists agree.
                let (stored, newStored) = (oldWalk.next()!, newWalk.next()!)
                if stored.pointee.entity.id == newStored.pointee.entity.id {
                    pair(
                        stored, newStored, oldPosition: oldOrder[oldIndex].index, newPosition: newOrder[newIndex].index)
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
                        newPosition: newOrder[newIndex..<newEnd].first { newLayout.ids[Int($0.index)] == id }!.index)
                }
            }
            (oldIndex, newIndex) = (oldEnd, newEnd)
        }
        return match
    }
}
