/// The values that differ between two versions of a trie, found by walking both and skipping every node
/// they share: after *k* changes since the older version, O(*k* log₁₆ *n*) nodes are visited.
extension _HashTrie where Value: Equatable {
    /// A key whose value may differ between two versions, with its values where the walk saw them.
    @usableFromInline struct Difference {
        @usableFromInline let key: Key
        /// The older version's value and the newer one's, when `isComplete`.
        @usableFromInline let old: Value?
        @usableFromInline let new: Value?
        /// Whether `old` and `new` are the two versions' values. Otherwise the key was met where one
        /// version has an entry and the other a subtree, or in a collision node, and its values are to be
        /// looked up (they may be equal).
        @usableFromInline let isComplete: Bool

        @inlinable init(key: Key, old: Value?, new: Value?, isComplete: Bool) {
            self.key = key
            self.old = old
            self.new = new
            self.isComplete = isComplete
        }
    }

    /// Every key whose value differs between `old` and this trie, or that only one of them holds, and
    /// possibly some whose values are equal (those not complete). A key that is not complete can be
    /// listed twice.
    ///
    /// The walk relies on versions sharing the nodes a change did not copy: two versions that share no
    /// node (a trie built anew) are compared entry by entry, in O(*n*).
    ///
    /// - Complexity: O(*c*) for the *c* nodes of either version that the other does not share.
    @inlinable func differences(since old: _HashTrie) -> [Difference] {
        var differences: [Difference] = []
        Self.collectDifferences(from: old.root, to: root, into: &differences)
        return differences
    }

    @inlinable static func collectDifferences(from old: Node, to new: Node, into differences: inout [Difference]) {
        guard old !== new else { return }
        let (oldMaps, newMaps) = (old.maps, new.maps)
        guard !oldMaps.isCollision && !newMaps.isCollision else {
            // Below the last fragment: a few entries whose whole hashes are equal.
            collectEntries(of: old, isOld: true, isComplete: false, into: &differences)
            collectEntries(of: new, isOld: false, isComplete: false, into: &differences)
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
                collectDifferences(from: oldChild.pointee, to: newChild.pointee, into: &differences)
            } else if let oldEntry, let newEntry {
                let (earlier, later) = (oldEntry.pointee, newEntry.pointee)
                guard earlier != later else { continue }
                // A key is only ever at its own place: two keys here are one removed and one added.
                if earlier.trieKey == later.trieKey {
                    differences.append(Difference(key: earlier.trieKey, old: earlier, new: later, isComplete: true))
                } else {
                    differences.append(Difference(key: earlier.trieKey, old: earlier, new: nil, isComplete: true))
                    differences.append(Difference(key: later.trieKey, old: nil, new: later, isComplete: true))
                }
            } else {
                // An entry facing a subtree may be in it; alone, it was added or removed.
                let isComplete = (oldEntry == nil || newChild == nil) && (newEntry == nil || oldChild == nil)
                if let oldEntry {
                    differences.append(
                        Difference(
                            key: oldEntry.pointee.trieKey, old: oldEntry.pointee, new: nil, isComplete: isComplete))
                }
                if let newEntry {
                    differences.append(
                        Difference(
                            key: newEntry.pointee.trieKey, old: nil, new: newEntry.pointee, isComplete: isComplete))
                }
                if let oldChild {
                    collectEntries(of: oldChild.pointee, isOld: true, isComplete: isComplete, into: &differences)
                }
                if let newChild {
                    collectEntries(of: newChild.pointee, isOld: false, isComplete: isComplete, into: &differences)
                }
            }
        }
    }

    /// Every entry of the subtree at `node`, as the value of the older version or of the newer one.
    @inlinable static func collectEntries(
        of node: Node, isOld: Bool, isComplete: Bool, into differences: inout [Difference]
    ) {
        var walk = HashOrderIterator(root: node)
        while let entry = walk.next() {
            let value = entry.pointee
            differences.append(
                Difference(
                    key: value.trieKey, old: isOld ? value : nil, new: isOld ? nil : value, isComplete: isComplete))
        }
    }
}
