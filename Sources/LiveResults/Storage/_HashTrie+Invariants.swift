extension _HashTrie {
    /// Traps unless the trie is well formed and canonical: maps agree with the arrays, every entry sits
    /// where its hash leads, collision nodes exist only below the last fragment, no child other than a
    /// collision node is a lone entry, and `count` is exact.
    ///
    /// - Complexity: O(*n*); for tests.
    @inlinable func _checkInvariants() {
        func check(_ node: _TrieNode<Key, Value>, shift: Int, prefix: UInt64, isRoot: Bool) -> Int {
            let mask: UInt64 = shift >= 64 ? ~0 : (1 << UInt64(shift)) &- 1
            for entry in node.entries {
                precondition(Self.hash(entry.key) & mask == prefix, "entry off its hash path")
            }
            if node.isCollision {
                precondition(
                    shift > Self.maximumShift && node.children.isEmpty, "collision node above the last fragment")
                return node.entries.count
            }
            precondition(node.entryMap.nonzeroBitCount == node.entries.count, "entry map disagrees")
            precondition(node.childMap.nonzeroBitCount == node.children.count, "child map disagrees")
            precondition(node.entryMap & node.childMap == 0, "fragment used twice")
            precondition(isRoot || !node.isSingleEntry, "uncompacted single-entry child")
            var total = node.entries.count
            var remaining = node.childMap
            for child in node.children {
                let fragment = UInt64(remaining.trailingZeroBitCount)
                remaining &= remaining &- 1
                total += check(child, shift: shift + 5, prefix: prefix | (fragment << UInt64(shift)), isRoot: false)
            }
            return total
        }
        precondition(check(root, shift: 0, prefix: 0, isRoot: true) == count, "count disagrees")
    }
}
