extension _HashTrie {
    /// A trie of values with unique keys, built top-down by a radix sort on the hash fragments: each
    /// node counts its values by fragment, scatters them into runs, and builds a child per run of two
    /// or more. Every value is hashed once and its 16-byte build entry moves once per level: O(*n*
    /// log₃₂ *n*), with no comparison sort, and each node is allocated once at its final size.
    @inlinable init(uniqueValues values: some Collection<Value>) {
        let built =
            values.withContiguousStorageIfAvailable { Self.build($0) }
            ?? ContiguousArray(values).withUnsafeBufferPointer { Self.build($0) }
        root = built
        count = values.count
    }

    /// Where a value being bulk-built is, and its hash.
    @usableFromInline struct _BuildEntry {
        @usableFromInline var hash: UInt64
        @usableFromInline var index: Int

        @inlinable init(hash: UInt64, index: Int) {
            self.hash = hash
            self.index = index
        }
    }

    @inlinable static func build(_ values: UnsafeBufferPointer<Value>) -> Node {
        guard !values.isEmpty else { return Node.empty() }
        // Two buffers: each level scatters a node's run from one into the other.
        let buffer = UnsafeMutablePointer<_BuildEntry>.allocate(capacity: 2 * values.count)
        defer { buffer.deallocate() }
        for index in values.indices {
            (buffer + index).initialize(to: _BuildEntry(hash: hash(values[index].trieKey), index: index))
        }
        return build(values, entries: buffer, scratch: buffer + values.count, count: values.count, shift: 0)
    }

    /// Builds the node of the `count` build entries at `entries`, whose hashes agree below `shift`,
    /// using as much room at `scratch`.
    @inlinable static func build(
        _ values: UnsafeBufferPointer<Value>,
        entries: UnsafeMutablePointer<_BuildEntry>,
        scratch: UnsafeMutablePointer<_BuildEntry>,
        count: Int,
        shift: Int
    ) -> Node {
        if shift > maximumShift {
            let node = Node.allocate(.collision(count: count))
            let target = node.entries(childCount: 0)
            for index in 0..<count { (target + index).initialize(to: values[entries[index].index]) }
            return node
        }
        var (seen, repeated): (UInt32, UInt32) = (0, 0)
        for index in 0..<count {
            let bit = UInt32(1) &<< Node.fragment(of: entries[index].hash, at: shift)
            repeated |= seen & bit
            seen |= bit
        }
        let maps = _TrieNodeMaps(entryMap: seen & ~repeated, childMap: repeated)
        let node = Node.allocate(maps)
        if maps.childMap == 0 {
            // All fragments differ (most nodes, near the bottom): each value goes straight to its place.
            let target = node.entries(childCount: 0)
            for index in 0..<count {
                let bit = UInt32(1) &<< Node.fragment(of: entries[index].hash, at: shift)
                (target + Node.index(of: bit, in: maps.entryMap)).initialize(to: values[entries[index].index])
            }
            return node
        }
        if maps.entryMap == 0 && maps.childMap.nonzeroBitCount == 1 {
            // One fragment for all: a single child, and nothing to scatter.
            node.children.initialize(
                to: build(values, entries: entries, scratch: scratch, count: count, shift: shift + 5))
            return node
        }
        withUnsafeTemporaryAllocation(of: Int.self, capacity: 32) { ends in
            // Count each fragment, turn the counts into run starts, then scatter: each start becomes
            // the end of its run.
            var remaining = seen
            while remaining != 0 {
                ends[remaining.trailingZeroBitCount] = 0
                remaining &= remaining &- 1
            }
            for index in 0..<count { ends[Int(Node.fragment(of: entries[index].hash, at: shift))] += 1 }
            var start = 0
            remaining = seen
            while remaining != 0 {
                let fragment = remaining.trailingZeroBitCount
                (start, ends[fragment]) = (start + ends[fragment], start)
                remaining &= remaining &- 1
            }
            for index in 0..<count {
                let fragment = Int(Node.fragment(of: entries[index].hash, at: shift))
                (scratch + ends[fragment]).initialize(to: entries[index])
                ends[fragment] += 1
            }
            let (children, target) = (node.children, node.entries(childCount: maps.childMap.nonzeroBitCount))
            var (childIndex, entryIndex) = (0, 0)
            start = 0
            remaining = seen
            while remaining != 0 {
                let end = ends[remaining.trailingZeroBitCount]
                if end - start == 1 {
                    (target + entryIndex).initialize(to: values[scratch[start].index])
                    entryIndex += 1
                } else {
                    // The child's run is in `scratch`; it may scatter into the same range of `entries`.
                    (children + childIndex).initialize(
                        to: build(
                            values, entries: scratch + start, scratch: entries + start, count: end - start,
                            shift: shift + 5))
                    childIndex += 1
                }
                start = end
                remaining &= remaining &- 1
            }
        }
        return node
    }
}
