extension _HashTrie {
    /// Traps unless the trie is well formed and canonical: each node's maps are disjoint and fit its
    /// level, its allocation holds the elements they count, every entry sits where its hash leads, collision
    /// nodes (two or more entries of one whole hash, distinct keys) exist exactly below the last
    /// fragment, no node but the root is empty or a lone entry, every child's maps recorded in its parent
    /// are its own, every borrowed child is its source's (and the source borrows nothing), and `count` is
    /// exact.
    ///
    /// - Complexity: O(*n*); for tests.
    @inlinable func _checkInvariants() {
        func check(_ node: Node, shift: Int, prefix: UInt64, isRoot: Bool) -> Int {
            let maps = node.maps
            let (entryCount, childCount) = (maps.entryCount, maps.childCount)
            let entries = node.entries(childCount: childCount)
            let end =
                entryCount > 0 ? UnsafeRawPointer(entries + entryCount) : UnsafeRawPointer(node.children + childCount)
            precondition(Int(bitPattern: entries) % MemoryLayout<Value>.alignment == 0, "misaligned entries")
            precondition(end <= UnsafeRawPointer(node.children + node.capacity), "node smaller than its elements")
            if shift > Self.maximumShift {
                precondition(maps.isCollision && entryCount >= 2, "not a collision node below the last fragment")
                for index in 0..<entryCount {
                    precondition(Self.hash(entries[index].trieKey) == prefix, "collision entry off its hash")
                    for other in 0..<index {
                        precondition(entries[other].trieKey != entries[index].trieKey, "key stored twice")
                    }
                }
                return entryCount
            }
            checkBorrowing(of: node)
            precondition(!maps.isCollision, "collision node above the last fragment")
            precondition(maps.entryMap & maps.childMap == 0, "fragment used twice")
            if shift == Self.maximumShift {
                precondition((maps.entryMap | maps.childMap) >> 16 == 0, "fragment past the last 4 bits")
            }
            precondition(isRoot || entryCount + childCount > 0, "empty node")
            precondition(isRoot || !maps.isSingleEntry, "uncompacted single-entry child")
            let mask: UInt64 = (1 << UInt64(shift + Node.fragmentBits)) &- 1
            var remaining = maps.entryMap
            for index in 0..<entryCount {
                let fragment = UInt64(remaining.trailingZeroBitCount)
                remaining &= remaining &- 1
                precondition(
                    Self.hash(entries[index].trieKey) & mask == prefix | (fragment << UInt64(shift)),
                    "entry off its hash path")
            }
            var total = entryCount
            remaining = maps.childMap
            for index in 0..<childCount {
                precondition(
                    node.childMaps(childCount: childCount)[index] == node.children[index].maps.recorded,
                    "a child's recorded maps are stale")
                let fragment = UInt64(remaining.trailingZeroBitCount)
                remaining &= remaining &- 1
                total += check(
                    node.children[index], shift: shift + Node.fragmentBits,
                    prefix: prefix | (fragment << UInt64(shift)),
                    isRoot: false)
            }
            return total
        }
        precondition(check(root, shift: 0, prefix: 0, isRoot: true) == count, "count disagrees")
    }

    /// Traps unless the children `node` borrows are its source's, and the source borrows none.
    @inlinable func checkBorrowing(of node: Node) {
        let borrowedMap = node.borrowedMap
        let source = node.source
        precondition((borrowedMap == 0) == (source == nil), "a source with nothing borrowed, or the reverse")
        if node.maps.hasSourceSlot {
            let end = UnsafeRawPointer(node.sourceSlot(node.maps) + 1)
            precondition(end <= UnsafeRawPointer(node.children + node.capacity), "node smaller than its source slot")
        }
        guard let source else { return }
        let (maps, sourceMaps) = (node.maps, source.maps)
        precondition(borrowedMap & ~maps.childMap == 0, "borrowed child missing")
        precondition(source.borrowedMap == 0, "a source that borrows")
        precondition(!sourceMaps.isCollision && borrowedMap & ~sourceMaps.childMap == 0, "borrowed child not in source")
        var remaining = borrowedMap
        while remaining != 0 {
            let bit = remaining & (0 &- remaining)
            remaining &= remaining &- 1
            precondition(
                node.children[Node.index(of: bit, in: maps.childMap)]
                    === source.children[Node.index(of: bit, in: sourceMaps.childMap)],
                "borrowed child differs from the source's")
        }
    }
}
