/// Walking a trie in hash order: two tries of the same keys, or a trie and a list sorted by
/// ``_HashTrie/hashOrderKey(of:)``, can then be paired by merging, without a hash table.
extension _HashTrie {
    /// The key that sorts hashes in the order ``forEachInHashOrder(_:)`` visits them: the hash's 4-bit
    /// fragments, first level's most significant.
    @inlinable static func hashOrderKey(of hash: UInt64) -> UInt64 {
        assert(Node.fragmentBits == 4, "the order key reverses the nibbles of the hash")
        let bytes = hash.byteSwapped
        return (bytes & 0x0F0F_0F0F_0F0F_0F0F) << 4 | (bytes >> 4) & 0x0F0F_0F0F_0F0F_0F0F
    }

    /// Calls `body` with every value, in ascending ``hashOrderKey(of:)`` of the hashes of their keys
    /// (values whose whole hashes are equal in no particular order).
    ///
    /// - Complexity: O(*n*).
    @inlinable func forEachInHashOrder(_ body: (Value) -> Void) {
        Self.forEachInHashOrder(below: root, body)
    }

    @inlinable static func forEachInHashOrder(below node: Node, _ body: (Value) -> Void) {
        let maps = node.maps
        let childCount = maps.childCount
        let entries = node.entries(childCount: childCount)
        guard !maps.isCollision else {
            for index in 0..<maps.entryCount { body(entries[index]) }
            return
        }
        // Entries and children each follow fragment order; merge the two by fragment.
        var (entryIndex, childIndex) = (0, 0)
        var remaining = maps.entryMap | maps.childMap
        while remaining != 0 {
            if maps.entryMap & remaining & (0 &- remaining) != 0 {
                body(entries[entryIndex])
                entryIndex += 1
            } else {
                forEachInHashOrder(below: node.children[childIndex], body)
                childIndex += 1
            }
            remaining &= remaining &- 1
        }
    }
}
