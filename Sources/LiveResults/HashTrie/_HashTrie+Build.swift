extension _HashTrie {
    /// A trie of values with unique keys, built top-down by an in-place radix sort on the hash
    /// fragments: each node groups its values by fragment and builds a child per group of two or more.
    /// Every value is hashed once and its 16-byte build entry moves about once per level: O(*n* log₁₆
    /// *n*), with no comparison sort, one buffer of 16 bytes per value, and each node allocated once at
    /// its final size.
    @inlinable init<Values: RandomAccessCollection<Value>>(uniqueValues values: Values) where Values.Index == Int {
        // Read in place, not copied into an array first: a fetch passes its result through a view
        // that makes each stored entity as it is read, and a copy of a million would be the largest
        // allocation of the fetch.
        self = Self.built(uniqueValues: values, keepingHashOrder: false).trie
    }

    /// A trie of values with unique keys, as ``init(uniqueValues:)`` builds it, and, if
    /// `keepingHashOrder`, the offsets of the values in `values` in the order ``makeHashOrderIterator()``
    /// visits them, each with its ``hashOrderKey(of:)`` in place of its hash (otherwise no offsets).
    ///
    /// The build leaves its entries grouped by hash fragment at every node but the lowest ones, so
    /// putting them in hash order takes only an insertion sort of groups of a few entries.
    ///
    /// - Complexity: O(*n* log₁₆ *n*).
    @inlinable static func built<Values: RandomAccessCollection<Value>>(
        uniqueValues values: Values,
        keepingHashOrder: Bool
    ) -> (trie: Self, hashOrder: [_HashedIndex]) where Values.Index == Int {
        guard !values.isEmpty else { return (Self(), []) }
        var entries = [_HashedIndex](unsafeUninitializedCapacity: values.count) { buffer, initialized in
            for offset in 0..<values.count {
                let index = values.startIndex + offset
                buffer.initializeElement(at: offset, to: _HashedIndex(hash: hash(values[index].trieKey), index: index))
            }
            initialized = values.count
        }
        let root = entries.withUnsafeMutableBufferPointer {
            build(values, entries: $0.baseAddress!, count: $0.count, shift: 0)
        }
        let trie = Self(root: root, count: values.count)
        guard keepingHashOrder else { return (trie, []) }
        for index in entries.indices {
            entries[index] = _HashedIndex(
                hash: hashOrderKey(of: entries[index].hash), index: entries[index].index - values.startIndex)
        }
        entries._sortNearlySorted(by: \.hash)
        return (trie, entries)
    }

    /// Builds the node of the `count` build entries at `entries`, whose hashes agree below `shift`,
    /// reordering them.
    @inlinable static func build<Values: RandomAccessCollection<Value>>(
        _ values: Values,
        entries: UnsafeMutablePointer<_HashedIndex>,
        count: Int,
        shift: Int
    ) -> Node where Values.Index == Int {
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
            // One fragment for all: a single child, and nothing to reorder.
            node.initializeChild(
                build(values, entries: entries, count: count, shift: shift + Node.fragmentBits), at: 0, childCount: 1)
            return node
        }
        withUnsafeTemporaryAllocation(of: Int.self, capacity: 64) { cursors in
            // Group the entries by fragment in place (an American flag sort pass): count each fragment,
            // then move each entry to the next free place of its group, taking out the entry there.
            let (next, ends) = (cursors.baseAddress!, cursors.baseAddress! + 32)
            var remaining = seen
            while remaining != 0 {
                next[remaining.trailingZeroBitCount] = 0
                remaining &= remaining &- 1
            }
            for index in 0..<count { next[Int(Node.fragment(of: entries[index].hash, at: shift))] += 1 }
            var start = 0
            remaining = seen
            while remaining != 0 {
                let fragment = remaining.trailingZeroBitCount
                (next[fragment], ends[fragment]) = (start, start + next[fragment])
                start = ends[fragment]
                remaining &= remaining &- 1
            }
            remaining = seen
            while remaining != 0 {
                let fragment = remaining.trailingZeroBitCount
                while next[fragment] < ends[fragment] {
                    var entry = entries[next[fragment]]
                    var other = Int(Node.fragment(of: entry.hash, at: shift))
                    while other != fragment {
                        swap(&entry, &entries[next[other]])
                        next[other] += 1
                        other = Int(Node.fragment(of: entry.hash, at: shift))
                    }
                    entries[next[fragment]] = entry
                    next[fragment] += 1
                }
                remaining &= remaining &- 1
            }
            let childCount = maps.childMap.nonzeroBitCount
            let target = node.entries(childCount: childCount)
            var (childIndex, entryIndex) = (0, 0)
            start = 0
            remaining = seen
            while remaining != 0 {
                let end = ends[remaining.trailingZeroBitCount]
                if end - start == 1 {
                    (target + entryIndex).initialize(to: values[entries[start].index])
                    entryIndex += 1
                } else {
                    let child = build(
                        values, entries: entries + start, count: end - start, shift: shift + Node.fragmentBits)
                    node.initializeChild(child, at: childIndex, childCount: childCount)
                    childIndex += 1
                }
                start = end
                remaining &= remaining &- 1
            }
        }
        return node
    }
}
