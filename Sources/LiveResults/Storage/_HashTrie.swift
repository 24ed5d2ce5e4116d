/// A persistent hash map (a compressed hash-array mapped prefix tree): O(1) copies that share all
/// nodes, and lookups, insertions and removals that visit and copy at most one node per 5 bits of
/// hash (O(log₃₂ *n*) on average).
@usableFromInline struct _HashTrie<Key: Hashable & Sendable, Value: Sendable>: Sendable {
    @usableFromInline typealias Node = _TrieNode<Key, Value>

    @usableFromInline var root = _TrieNode<Key, Value>()
    @usableFromInline var count = 0

    @inlinable init() {}

    /// A trie of unique keys, built in O(*n* log *n*) comparisons of integers: the entries are sorted once
    /// by their hash fragments, first fragment most significant, then each node takes a contiguous range.
    @inlinable init(uniqueKeysWithValues entries: some Sequence<(key: Key, value: Value)>) {
        let entries = ContiguousArray(entries)
        var order = entries.indices.map {
            _BuildEntry(order: Self.trieOrder(of: Self.hash(entries[$0].key)), index: $0)
        }
        order.sort { $0.order < $1.order }
        count = order.count
        root = Self.build(entries, sortedBy: order, in: 0..<order.count, shift: 0)
    }

    /// Where an entry being bulk-built is, and its hash rearranged so that integer order is trie order.
    /// Sorting these rather than the entries moves 16 bytes per entry, not whole values.
    @usableFromInline struct _BuildEntry {
        @usableFromInline var order: UInt64
        @usableFromInline var index: Int

        @usableFromInline
        init(order: UInt64, index: Int) {
            self.order = order
            self.index = index
        }
    }

    /// The hash with its fragments in reverse order, so that the first fragment is the most significant.
    @inlinable static func trieOrder(of hash: UInt64) -> UInt64 {
        var order: UInt64 = 0
        var shift = 0
        while shift <= maximumShift {
            let width = UInt64(Swift.min(5, 64 - shift))
            order = (order << width) | ((hash >> UInt64(shift)) & ((1 << width) - 1))
            shift += 5
        }
        return order
    }

    /// The fragment at `shift` of a hash, read from its trie order: fragments at shifts 0 to 55 are
    /// 5 bits wide, the last one, at 60, is 4 bits wide.
    @inlinable static func fragment(ofOrder order: UInt64, at shift: Int) -> UInt32 {
        let (lowBit, width): (UInt64, UInt64) = shift == 60 ? (0, 4) : (UInt64(59 - shift), 5)
        return UInt32(truncatingIfNeeded: (order >> lowBit) & ((1 << width) - 1))
    }

    @inlinable static func hash(_ key: Key) -> UInt64 {
        UInt64(bitPattern: Int64(key.hashValue))
    }

    @inlinable static var maximumShift: Int { 60 }

    @inlinable subscript(key: Key) -> Value? {
        let hash = Self.hash(key)
        var node = root
        var shift = 0
        while true {
            if node.isCollision { return node.entries.first { $0.key == key }?.value }
            let bit = UInt32(1) << Node.fragment(of: hash, at: shift)
            if node.entryMap & bit != 0 {
                let entry = node.entries[Node.index(of: bit, in: node.entryMap)]
                return entry.key == key ? entry.value : nil
            }
            guard node.childMap & bit != 0 else { return nil }
            node = node.children[Node.index(of: bit, in: node.childMap)]
            shift += 5
        }
    }

    /// Sets the value of `key`.
    ///
    /// - Returns: The value it replaced, if any.
    @discardableResult
    @inlinable mutating func updateValue(_ value: Value, forKey key: Key) -> Value? {
        let old = Self.update(&root, with: (key, value), hash: Self.hash(key), shift: 0)
        if old == nil { count += 1 }
        return old
    }

    /// Removes `key`.
    ///
    /// - Returns: The removed value, if any.
    @discardableResult
    @inlinable mutating func removeValue(forKey key: Key) -> Value? {
        let removed = Self.remove(key, hash: Self.hash(key), shift: 0, from: &root)
        if removed != nil { count -= 1 }
        return removed
    }

    @inlinable static func update(_ node: inout Node, with entry: Node.Entry, hash: UInt64, shift: Int) -> Value? {
        Node.makeUnique(&node)
        if node.isCollision {
            if let index = node.entries.firstIndex(where: { $0.key == entry.key }) {
                defer { node.entries[index].value = entry.value }
                return node.entries[index].value
            }
            node.entries.insertCompactly(entry, at: node.entries.count)
            return nil
        }
        let bit = UInt32(1) << Node.fragment(of: hash, at: shift)
        if node.entryMap & bit != 0 {
            let index = Node.index(of: bit, in: node.entryMap)
            let existing = node.entries[index]
            if existing.key == entry.key {
                node.entries[index].value = entry.value
                return existing.value
            }
            // Two keys share this fragment: push both one level down.
            let child = pair(existing, hash: Self.hash(existing.key), with: entry, hash: hash, shift: shift + 5)
            node.entries.remove(at: index)
            node.entryMap &= ~bit
            node.childMap |= bit
            node.children.insertCompactly(child, at: Node.index(of: bit, in: node.childMap))
            return nil
        }
        if node.childMap & bit != 0 {
            return update(
                &node.children[Node.index(of: bit, in: node.childMap)], with: entry, hash: hash, shift: shift + 5)
        }
        node.entryMap |= bit
        node.entries.insertCompactly(entry, at: Node.index(of: bit, in: node.entryMap))
        return nil
    }

    /// A node holding two entries whose hashes agree below `shift`.
    @inlinable static func pair(
        _ first: Node.Entry, hash firstHash: UInt64, with second: Node.Entry, hash secondHash: UInt64, shift: Int
    ) -> Node {
        // Collision nodes exist only below the last fragment, where whole hashes are equal.
        guard shift <= maximumShift else {
            return Node(entries: [first, second], isCollision: true)
        }
        let (firstFragment, secondFragment) = (
            Node.fragment(of: firstHash, at: shift), Node.fragment(of: secondHash, at: shift)
        )
        if firstFragment == secondFragment {
            let child = pair(first, hash: firstHash, with: second, hash: secondHash, shift: shift + 5)
            return Node(childMap: UInt32(1) << firstFragment, children: [child])
        }
        let entries: ContiguousArray = firstFragment < secondFragment ? [first, second] : [second, first]
        return Node(entryMap: (UInt32(1) << firstFragment) | (UInt32(1) << secondFragment), entries: entries)
    }

    @inlinable static func remove(_ key: Key, hash: UInt64, shift: Int, from node: inout Node) -> Value? {
        if node.isCollision {
            guard let index = node.entries.firstIndex(where: { $0.key == key }) else { return nil }
            Node.makeUnique(&node)
            return node.entries.remove(at: index).value
        }
        let bit = UInt32(1) << Node.fragment(of: hash, at: shift)
        if node.entryMap & bit != 0 {
            let index = Node.index(of: bit, in: node.entryMap)
            guard node.entries[index].key == key else { return nil }
            Node.makeUnique(&node)
            node.entryMap &= ~bit
            return node.entries.remove(at: index).value
        }
        guard node.childMap & bit != 0 else { return nil }
        Node.makeUnique(&node)
        let index = Node.index(of: bit, in: node.childMap)
        let removed = remove(key, hash: hash, shift: shift + 5, from: &node.children[index])
        if removed != nil, node.children[index].isSingleEntry {
            // Keep the trie canonical: a child left with one entry moves up into this node.
            let entry = node.children.remove(at: index).entries[0]
            node.childMap &= ~bit
            node.entryMap |= bit
            node.entries.insertCompactly(entry, at: Node.index(of: bit, in: node.entryMap))
        }
        return removed
    }

    /// Builds the node for the entries `order[range]` points to, whose hashes agree below `shift`.
    @inlinable static func build(
        _ entries: ContiguousArray<(key: Key, value: Value)>,
        sortedBy order: [_BuildEntry],
        in range: Range<Int>,
        shift: Int
    ) -> Node {
        if shift > maximumShift {
            return Node(
                entries: ContiguousArray(order[range].lazy.map { entries[$0.index] }), isCollision: range.count > 1)
        }
        var runs: [(fragment: UInt32, range: Range<Int>)] = []
        var start = range.lowerBound
        while start < range.upperBound {
            let fragment = fragment(ofOrder: order[start].order, at: shift)
            var end = start + 1
            while end < range.upperBound && Self.fragment(ofOrder: order[end].order, at: shift) == fragment { end += 1 }
            runs.append((fragment, start..<end))
            start = end
        }
        let node = Node()
        node.entries.reserveCapacity(runs.lazy.filter { $0.range.count == 1 }.count)
        node.children.reserveCapacity(runs.lazy.filter { $0.range.count > 1 }.count)
        for run in runs {
            let bit = UInt32(1) << run.fragment
            if run.range.count == 1 {
                node.entryMap |= bit
                node.entries.append(entries[order[run.range.lowerBound].index])
            } else {
                node.childMap |= bit
                node.children.append(build(entries, sortedBy: order, in: run.range, shift: shift + 5))
            }
        }
        return node
    }
}

extension _HashTrie: Sequence {
    /// Visits every entry, in no particular order.
    @usableFromInline struct Iterator: IteratorProtocol {
        @usableFromInline var stack: [_TrieNode<Key, Value>]
        @usableFromInline var entries: ContiguousArray<(key: Key, value: Value)>.Iterator

        @inlinable init(root: _TrieNode<Key, Value>) {
            stack = Array(root.children)
            entries = root.entries.makeIterator()
        }

        @inlinable mutating func next() -> (key: Key, value: Value)? {
            while true {
                if let entry = entries.next() { return entry }
                guard let node = stack.popLast() else { return nil }
                stack.append(contentsOf: node.children)
                entries = node.entries.makeIterator()
            }
        }
    }

    @inlinable func makeIterator() -> Iterator { Iterator(root: root) }

    @inlinable var underestimatedCount: Int { count }
}
