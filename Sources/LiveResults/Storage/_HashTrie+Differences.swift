/// The keys whose values differ between two versions of a trie, found by walking both and skipping every
/// node they share: after *k* changes since the older version, O(*k* log₁₆ *n*) nodes are visited.
extension _HashTrie where Value: Equatable {
    /// The keys whose value differs between `old` and this trie, or that only one of them holds, and
    /// possibly some whose values are equal (where one version has an entry and the other a subtree at
    /// the same place, every key of the subtree is listed). A key can be listed twice.
    ///
    /// The walk relies on versions sharing the nodes a change did not copy: two versions that share no
    /// node (a trie built anew) are compared entry by entry, in O(*n*).
    ///
    /// - Complexity: O(*c*) for the *c* nodes of either version that the other does not share.
    @inlinable func keysChanged(since old: _HashTrie) -> [Key] {
        var keys: [Key] = []
        Self.collectChanges(from: old.root, to: root, into: &keys)
        return keys
    }

    @inlinable static func collectChanges(from old: Node, to new: Node, into keys: inout [Key]) {
        guard old !== new else { return }
        let (oldMaps, newMaps) = (old.maps, new.maps)
        guard !oldMaps.isCollision && !newMaps.isCollision else {
            // Below the last fragment: a few entries whose whole hashes are equal.
            collectEntries(of: old, into: &keys)
            collectEntries(of: new, into: &keys)
            return
        }
        let (oldEntries, newEntries) = (
            old.entries(childCount: oldMaps.childCount), new.entries(childCount: newMaps.childCount)
        )
        var fragments = oldMaps.entryMap | oldMaps.childMap | newMaps.entryMap | newMaps.childMap
        while fragments != 0 {
            let bit = fragments & (0 &- fragments)
            fragments &= fragments &- 1
            let oldChild = oldMaps.childMap & bit != 0 ? old.children + Node.index(of: bit, in: oldMaps.childMap) : nil
            let newChild = newMaps.childMap & bit != 0 ? new.children + Node.index(of: bit, in: newMaps.childMap) : nil
            let oldEntry = oldMaps.entryMap & bit != 0 ? oldEntries + Node.index(of: bit, in: oldMaps.entryMap) : nil
            let newEntry = newMaps.entryMap & bit != 0 ? newEntries + Node.index(of: bit, in: newMaps.entryMap) : nil
            if let oldChild, let newChild {
                // Compared as stored references, without retaining nodes that are mostly shared.
                guard UnsafeRawPointer(oldChild).load(as: UInt.self) != UnsafeRawPointer(newChild).load(as: UInt.self)
                else { continue }
                collectChanges(from: oldChild.pointee, to: newChild.pointee, into: &keys)
            } else if let oldEntry, let newEntry {
                if oldEntry.pointee != newEntry.pointee {
                    keys.append(oldEntry.pointee.trieKey)
                    if oldEntry.pointee.trieKey != newEntry.pointee.trieKey { keys.append(newEntry.pointee.trieKey) }
                }
            } else {
                if let oldEntry { keys.append(oldEntry.pointee.trieKey) }
                if let newEntry { keys.append(newEntry.pointee.trieKey) }
                if let oldChild { collectEntries(of: oldChild.pointee, into: &keys) }
                if let newChild { collectEntries(of: newChild.pointee, into: &keys) }
            }
        }
    }

    /// Every key of the subtree at `node`.
    @inlinable static func collectEntries(of node: Node, into keys: inout [Key]) {
        var walk = HashOrderIterator(root: node)
        while let entry = walk.next() { keys.append(entry.pointee.trieKey) }
    }
}
