/// A node of a ``_HashTrie``, in the CHAMP layout: entries stored inline, then child nodes, each
/// indexed by a 32-bit map of the 5-bit hash fragments they occupy. Below the last fragment, a
/// collision node lists entries whose whole hashes are equal.
///
/// Arrays are kept at their exact size, since entries usually hold whole entities.
@usableFromInline final class _TrieNode<Key: Hashable & Sendable, Value: Sendable>: @unchecked Sendable {
    // @unchecked Sendable: a node is mutated only while uniquely referenced (the trie checks
    // `isKnownUniquelyReferenced` before every write and copies otherwise), so a node reachable from
    // more than one trie version, or from another thread, is never written again.

    @usableFromInline typealias Entry = (key: Key, value: Value)

    @usableFromInline var entryMap: UInt32
    @usableFromInline var childMap: UInt32
    @usableFromInline var entries: ContiguousArray<Entry>
    @usableFromInline var children: ContiguousArray<_TrieNode>
    /// Whether this is a collision node: its entries share one full hash and the maps are unused.
    @usableFromInline let isCollision: Bool

    @inlinable init(
        entryMap: UInt32 = 0, childMap: UInt32 = 0, entries: ContiguousArray<Entry> = [],
        children: ContiguousArray<_TrieNode> = [], isCollision: Bool = false
    ) {
        self.entryMap = entryMap
        self.childMap = childMap
        self.entries = entries
        self.children = children
        self.isCollision = isCollision
    }

    @inlinable func copy() -> _TrieNode {
        _TrieNode(
            entryMap: entryMap, childMap: childMap, entries: entries, children: children, isCollision: isCollision)
    }

    @inlinable static func makeUnique(_ node: inout _TrieNode) {
        if !isKnownUniquelyReferenced(&node) { node = node.copy() }
    }

    @inlinable static func fragment(of hash: UInt64, at shift: Int) -> UInt32 {
        UInt32(truncatingIfNeeded: (hash >> UInt64(shift)) & 31)
    }

    /// The index among the set bits of `map` below `bit`.
    @inlinable static func index(of bit: UInt32, in map: UInt32) -> Int {
        (map & (bit &- 1)).nonzeroBitCount
    }

    /// Whether the node is a single entry that its parent can hold inline instead.
    @inlinable var isSingleEntry: Bool { children.isEmpty && entries.count == 1 }
}

extension ContiguousArray {
    /// Inserts without the geometric growth of `insert(_:at:)`: trie nodes stay at their exact size.
    @inlinable mutating func insertCompactly(_ element: Element, at index: Int) {
        var grown = ContiguousArray()
        grown.reserveCapacity(count + 1)
        grown.append(contentsOf: self[..<index])
        grown.append(element)
        grown.append(contentsOf: self[index...])
        self = grown
    }
}
