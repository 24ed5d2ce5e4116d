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

    /// What a node holds at one fragment.
    @usableFromInline enum _Slot {
        case empty
        case entry(UnsafePointer<Value>)
        case child(Node)
    }

    @inlinable static func slot(at bit: UInt32, of node: Node, _ maps: _TrieNodeMaps) -> _Slot {
        if maps.entryMap & bit != 0 {
            return .entry(
                UnsafePointer(node.entries(childCount: maps.childCount) + Node.index(of: bit, in: maps.entryMap)))
        }
        guard maps.childMap & bit != 0 else { return .empty }
        return .child(node.children[Node.index(of: bit, in: maps.childMap)])
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
        var fragments = oldMaps.entryMap | oldMaps.childMap | newMaps.entryMap | newMaps.childMap
        while fragments != 0 {
            let bit = fragments & (0 &- fragments)
            fragments &= fragments &- 1
            switch (slot(at: bit, of: old, oldMaps), slot(at: bit, of: new, newMaps)) {
            case (.child(let oldChild), .child(let newChild)):
                collectChanges(from: oldChild, to: newChild, into: &keys)
            case (.entry(let oldEntry), .entry(let newEntry)):
                if oldEntry.pointee != newEntry.pointee {
                    keys.append(oldEntry.pointee.trieKey)
                    if oldEntry.pointee.trieKey != newEntry.pointee.trieKey { keys.append(newEntry.pointee.trieKey) }
                }
            case (let oldSlot, let newSlot):
                collect(oldSlot, into: &keys)
                collect(newSlot, into: &keys)
            }
        }
    }

    @inlinable static func collect(_ slot: _Slot, into keys: inout [Key]) {
        switch slot {
        case .empty: break
        case .entry(let entry): keys.append(entry.pointee.trieKey)
        case .child(let child): collectEntries(of: child, into: &keys)
        }
    }

    /// Every key of the subtree at `node`.
    @inlinable static func collectEntries(of node: Node, into keys: inout [Key]) {
        var walk = HashOrderIterator(root: node)
        while let entry = walk.next() { keys.append(entry.pointee.trieKey) }
    }
}
