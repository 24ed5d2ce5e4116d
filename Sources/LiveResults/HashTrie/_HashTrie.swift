/// A persistent hash map (a compressed hash-array mapped prefix tree) of values that carry their keys:
/// O(1) copies that share all nodes, and lookups, insertions and removals that visit and copy at most
/// one node per 4 bits of hash (O(log₁₆ *n*) on average).
///
/// Each node is one allocation holding its entries and child references (see ``_TrieNode``), and each
/// entry is the value alone: its key is read from it (``_HashTrieValue``).
@usableFromInline struct _HashTrie<Key: Hashable & Sendable, Value: _HashTrieValue>: @unchecked Sendable
where Value.TrieKey == Key {
    // @unchecked Sendable: the values are `Sendable`, and a node is mutated only while uniquely
    // referenced (the trie checks `isKnownUniquelyReferenced` before every write and copies otherwise),
    // so a node reachable from more than one trie version, or from another thread, is never written again
    // but for its source slot: a change may have a shared node take over the children it borrows
    // (`_TrieNode.absorbSource(keepingSourceIn:)`). Readers never look at that slot, and versions that
    // share nodes must be changed one at a time, which the controller's lock ensures (snapshots are never
    // changed).

    @usableFromInline typealias Node = _TrieNode<Value>

    @usableFromInline var root: Node
    @usableFromInline var count: Int
    /// The hash of the last key changed, if that change copied nodes that borrow their children: where
    /// the next change looks first for sources it can absorb (see
    /// ``absorbSourcesAlongLastChange(keepingSourcesIn:)``).
    @usableFromInline var lastBorrowingChange: UInt64?

    @inlinable init() {
        self.init(root: Node.empty(), count: 0)
    }

    @inlinable init(root: Node, count: Int) {
        self.root = root
        self.count = count
        self.lastBorrowingChange = nil
    }

    @inlinable static func hash(_ key: Key) -> UInt64 {
        UInt64(bitPattern: Int64(key.hashValue))
    }

    /// The shift of the last hash fragment, 4 bits wide; nodes below it are collision nodes.
    @inlinable static var maximumShift: Int { 60 }

    @inlinable subscript(key: Key) -> Value? {
        let hash = Self.hash(key)
        // The path is held by `root`, so the walk takes no references: a method call on an unowned
        // reference retains and releases the node, an atomic write to a line mostly out of the cache.
        var node = Unmanaged.passUnretained(root)
        // Below the root, a node's maps come from its parent's record of them, so each level waits for
        // one line of the node (the entry or the child it wants), not for its header first.
        var maps = root.maps
        var shift = 0
        var found: Value?
        while shift <= Self.maximumShift {
            let child: (node: Unmanaged<Node>, maps: _TrieNodeMaps)? = node._withUnsafeGuaranteedRef { node in
                let bit = UInt32(1) &<< Node.fragment(of: hash, at: shift)
                let childCount = maps.childMap.nonzeroBitCount
                if maps.entryMap & bit != 0 {
                    let entry = node.entries(childCount: childCount) + Node.index(of: bit, in: maps.entryMap)
                    if entry.pointee.trieKey == key { found = entry.pointee }
                    return nil
                }
                guard maps.childMap & bit != 0 else { return nil }
                let index = Node.index(of: bit, in: maps.childMap)
                return (
                    Unmanaged.passUnretained(node.children[index]),
                    _TrieNodeMaps(recorded: node.childMaps(childCount: childCount)[index])
                )
            }
            guard let child else { return found }
            (node, maps) = child
            // The header is not needed here, but a change that follows the lookup on the same path reads
            // it: loaded now, it arrives with the line the lookup waits for, not after.
            node._withUnsafeGuaranteedRef { node in
                node.withUnsafeMutablePointerToHeader { _Prefetch.keep(_Prefetch.load($0)) }
            }
            shift += Node.fragmentBits
        }
        return node._withUnsafeGuaranteedRef { node in
            let entries = node.entries(childCount: 0)
            for index in 0..<Int(node.maps.entryMap) where entries[index].trieKey == key {
                return entries[index]
            }
            return nil
        }
    }

    /// Stores `value` under its key, replacing the value with that key if there is one.
    ///
    /// - Returns: The value it replaced, if any.
    @discardableResult
    @inlinable mutating func updateValue(_ value: Value) -> Value? {
        let (key, hash) = (value.trieKey, Self.hash(value.trieKey))
        let old = changing { trie, spares in
            Self.update(&trie.root, with: value, key: key, hash: hash, shift: 0, spares: &spares)
        }
        if old == nil { count += 1 }
        noteChange(at: hash)
        return old
    }

    /// Removes the value with key `key`.
    ///
    /// - Returns: The removed value, if any.
    @discardableResult
    @inlinable mutating func removeValue(forKey key: Key) -> Value? {
        let hash = Self.hash(key)
        let removed = changing { trie, spares in
            Self.remove(key, hash: hash, shift: 0, from: &trie.root, spares: &spares)
        }
        if removed != nil { count -= 1 }
        noteChange(at: hash)
        return removed
    }

    /// Runs a change: first the absorbs along the previous change's path, whose freed sources the change
    /// may reuse for its copies (``_TrieNodeSpares``). Without such a path, as when no snapshot is
    /// taken, there is nothing to absorb or reuse, and no spares are set up.
    @inlinable mutating func changing<Result>(
        _ change: (inout _HashTrie, inout _TrieNodeSpares<Value>) -> Result
    ) -> Result {
        guard lastBorrowingChange != nil else {
            var none = _TrieNodeSpares<Value>.none
            return change(&self, &none)
        }
        return _TrieNodeSpares<Value>.withSpares { spares in
            absorbSourcesAlongLastChange(keepingSourcesIn: &spares)
            return change(&self, &spares)
        }
    }

    /// Remembers where a change that copied shared nodes went. Those copies borrow their children from
    /// the nodes they replaced, which a snapshot usually lets go of before the next change.
    @inlinable mutating func noteChange(at hash: UInt64) {
        lastBorrowingChange = root.borrowedMap != 0 ? hash : nil
    }

    /// Has the nodes the last change copied take over their children where nothing else holds their
    /// sources any more: right away, while that path is in the cache, and so that a value this trie no
    /// longer holds is freed once the snapshots holding it are gone and the trie changes again.
    @inlinable mutating func absorbSourcesAlongLastChange(keepingSourcesIn spares: inout _TrieNodeSpares<Value>) {
        guard let hash = lastBorrowingChange else { return }
        lastBorrowingChange = nil
        // The path is held by `root`: the walk takes no references (a retain and a release per level
        // otherwise, around the absorb).
        var node = Unmanaged.passUnretained(root)
        var shift = 0
        while true {
            let maps = node._withUnsafeGuaranteedRef { node in
                node.absorbSource(keepingSourceIn: &spares)
                return node.maps
            }
            let bit = UInt32(1) &<< Node.fragment(of: hash, at: shift)
            guard shift <= Self.maximumShift, maps.childMap & bit != 0 else { return }
            node = Unmanaged.passUnretained(
                node._withUnsafeGuaranteedRef { $0.children[Node.index(of: bit, in: maps.childMap)] })
            shift += Node.fragmentBits
        }
    }

    /// Has every node that borrows take over its children where nothing else holds its source any more:
    /// frees the earlier versions that snapshots let go of, which otherwise stay until a change passes
    /// through their nodes (at most one earlier version per node, but a snapshot held across many
    /// changes leaves one behind for each node those changes copied).
    ///
    /// The values and the shape of the trie do not change; sources that a live snapshot still holds
    /// stay as they are.
    ///
    /// - Complexity: O(*m*) for *m* nodes, about *n* / 3 for *n* values.
    @inlinable mutating func absorbAllSources() {
        Self.absorbSources(under: root)
    }

    @inlinable static func absorbSources(under node: Node) {
        var none = _TrieNodeSpares<Value>.none
        node.absorbSource(keepingSourceIn: &none)
        // A child still borrowed from a source that a snapshot holds can have a source of its own.
        for index in 0..<node.maps.childCount { absorbSources(under: node.children[index]) }
    }

    @inlinable static func update(
        _ node: inout Node, with value: Value, key: Key, hash: UInt64, shift: Int,
        spares: inout _TrieNodeSpares<Value>
    ) -> Value? {
        if shift > maximumShift { return updateCollision(&node, with: value, key: key, spares: &spares) }
        let maps = node.maps
        let bit = UInt32(1) &<< Node.fragment(of: hash, at: shift)
        if maps.entryMap & bit != 0 {
            let index = Node.index(of: bit, in: maps.entryMap)
            let childCount = maps.childMap.nonzeroBitCount
            if node.entries(childCount: childCount)[index].trieKey == key {
                Node.makeUnique(&node, reusing: &spares)
                let entry = node.entries(childCount: childCount) + index
                let old = entry.move()
                entry.initialize(to: value)
                return old
            }
            // Two keys share this fragment: push both one level down.
            let existing = node.entries(childCount: childCount)[index]
            let child = pair(
                existing, hash: Self.hash(existing.trieKey), with: value, hash: hash, shift: shift + Node.fragmentBits)
            let childMap = maps.childMap | bit
            Node.splice(
                &node, to: _TrieNodeMaps(entryMap: maps.entryMap & ~bit, childMap: childMap),
                childAt: Node.index(of: bit, in: childMap), insertingChild: child,
                entryAt: index, removingEntry: true)
            return nil
        }
        if maps.childMap & bit != 0 {
            Node.makeUnique(&node, reusing: &spares)
            let index = Node.index(of: bit, in: maps.childMap)
            node.claimChild(at: index, bit: bit)
            let old = update(
                &node.children[index], with: value, key: key, hash: hash, shift: shift + Node.fragmentBits,
                spares: &spares)
            node.recordMaps(ofChildAt: index, childCount: maps.childCount)
            return old
        }
        let entryMap = maps.entryMap | bit
        Node.splice(
            &node, to: _TrieNodeMaps(entryMap: entryMap, childMap: maps.childMap),
            entryAt: Node.index(of: bit, in: entryMap), insertingEntry: value)
        return nil
    }

    @inlinable static func updateCollision(
        _ node: inout Node, with value: Value, key: Key, spares: inout _TrieNodeSpares<Value>
    ) -> Value? {
        let count = Int(node.maps.entryMap)
        for index in 0..<count where node.entries(childCount: 0)[index].trieKey == key {
            Node.makeUnique(&node, reusing: &spares)
            let entry = node.entries(childCount: 0) + index
            let old = entry.move()
            entry.initialize(to: value)
            return old
        }
        Node.splice(&node, to: .collision(count: count + 1), entryAt: count, insertingEntry: value)
        return nil
    }

    /// A node holding two entries whose hashes agree below `shift`.
    @inlinable static func pair(
        _ first: Value, hash firstHash: UInt64, with second: Value, hash secondHash: UInt64, shift: Int
    ) -> Node {
        // Collision nodes exist only below the last fragment, where whole hashes are equal.
        guard shift <= maximumShift else {
            let node = Node.allocate(.collision(count: 2))
            let entries = node.entries(childCount: 0)
            entries.initialize(to: first)
            (entries + 1).initialize(to: second)
            return node
        }
        let (firstFragment, secondFragment) = (
            Node.fragment(of: firstHash, at: shift), Node.fragment(of: secondHash, at: shift)
        )
        if firstFragment == secondFragment {
            let child = pair(first, hash: firstHash, with: second, hash: secondHash, shift: shift + Node.fragmentBits)
            let node = Node.allocate(_TrieNodeMaps(entryMap: 0, childMap: UInt32(1) &<< firstFragment))
            node.initializeChild(child, at: 0, childCount: 1)
            return node
        }
        let node = Node.allocate(
            _TrieNodeMaps(entryMap: (UInt32(1) &<< firstFragment) | (UInt32(1) &<< secondFragment), childMap: 0))
        let entries = node.entries(childCount: 0)
        let firstIndex = firstFragment < secondFragment ? 0 : 1
        (entries + firstIndex).initialize(to: first)
        (entries + (1 - firstIndex)).initialize(to: second)
        return node
    }

    /// Removes `key` from the subtree `node`, keeping it canonical: a child left with a single entry
    /// moves up into its parent.
    @inlinable static func remove(
        _ key: Key, hash: UInt64, shift: Int, from node: inout Node, spares: inout _TrieNodeSpares<Value>
    ) -> Value? {
        if shift > maximumShift {
            // A collision node of two entries is replaced by its parent (below); this one keeps two.
            let count = Int(node.maps.entryMap)
            for index in 0..<count where node.entries(childCount: 0)[index].trieKey == key {
                let removed = node.entries(childCount: 0)[index]
                Node.splice(&node, to: .collision(count: count - 1), entryAt: index, removingEntry: true)
                return removed
            }
            return nil
        }
        let maps = node.maps
        let bit = UInt32(1) &<< Node.fragment(of: hash, at: shift)
        if maps.entryMap & bit != 0 {
            let index = Node.index(of: bit, in: maps.entryMap)
            let entry = node.entries(childCount: maps.childMap.nonzeroBitCount) + index
            guard entry.pointee.trieKey == key else { return nil }
            let removed = entry.pointee
            Node.splice(
                &node, to: _TrieNodeMaps(entryMap: maps.entryMap & ~bit, childMap: maps.childMap),
                entryAt: index, removingEntry: true)
            return removed
        }
        guard maps.childMap & bit != 0 else { return nil }
        let childIndex = Node.index(of: bit, in: maps.childMap)
        let childMaps = node.children[childIndex].maps
        if childMaps.entryCount == 2 && childMaps.childCount == 0 {
            // A child of two entries: the one that stays replaces the child, with no node in between.
            let entries = node.children[childIndex].entries(childCount: 0)
            let index: Int
            if childMaps.isCollision {
                index = entries[0].trieKey == key ? 0 : 1
            } else {
                let childBit = UInt32(1) &<< Node.fragment(of: hash, at: shift + Node.fragmentBits)
                guard childMaps.entryMap & childBit != 0 else { return nil }
                index = Node.index(of: childBit, in: childMaps.entryMap)
            }
            guard entries[index].trieKey == key else { return nil }
            let (removed, remaining) = (entries[index], entries[1 - index])
            pullUp(remaining, replacingChildAt: childIndex, bit: bit, in: &node)
            return removed
        }
        Node.makeUnique(&node, reusing: &spares)
        node.claimChild(at: childIndex, bit: bit)
        guard
            let removed = remove(
                key, hash: hash, shift: shift + Node.fragmentBits, from: &node.children[childIndex], spares: &spares)
        else {
            return nil
        }
        node.recordMaps(ofChildAt: childIndex, childCount: maps.childCount)
        if node.children[childIndex].maps.isSingleEntry {
            pullUp(
                node.children[childIndex].entries(childCount: 0)[0], replacingChildAt: childIndex, bit: bit, in: &node)
        }
        return removed
    }

    /// Replaces the child of `node` at fragment `bit` by `entry`.
    @inlinable static func pullUp(_ entry: Value, replacingChildAt childIndex: Int, bit: UInt32, in node: inout Node) {
        let maps = node.maps
        let entryMap = maps.entryMap | bit
        Node.splice(
            &node, to: _TrieNodeMaps(entryMap: entryMap, childMap: maps.childMap & ~bit),
            childAt: childIndex, removingChild: true,
            entryAt: Node.index(of: bit, in: entryMap), insertingEntry: entry)
    }
}

extension _HashTrie: Sequence {
    /// Visits every value, in no particular order.
    @usableFromInline struct Iterator: IteratorProtocol {
        @usableFromInline var stack: [Node]
        @usableFromInline var node: Node?
        @usableFromInline var index = 0
        @usableFromInline var entryCount = 0

        @inlinable init(root: Node) {
            stack = [root]
        }

        @inlinable mutating func next() -> Value? {
            while true {
                if let node, index < entryCount {
                    defer { index += 1 }
                    return node.entries(childCount: node.maps.childCount)[index]
                }
                guard let next = stack.popLast() else {
                    node = nil
                    return nil
                }
                let maps = next.maps
                // One append per child: `append(contentsOf:)` of a buffer goes through the runtime's
                // generic array copy, which was a tenth of walking the records in a refetch.
                for index in 0..<maps.childCount { stack.append(next.children[index]) }
                (node, index, entryCount) = (next, 0, maps.entryCount)
            }
        }
    }

    @inlinable func makeIterator() -> Iterator { Iterator(root: root) }

    @inlinable var underestimatedCount: Int { count }
}
