/// The header of a ``_TrieNode``, one word: which 4-bit hash fragments lead to an entry of the node,
/// which to a child node, and whether the node has a slot for a source (``_TrieNodeSource``). It never
/// changes once the node is shared.
///
/// A collision node, below the last fragment, has all ones in both maps (an ordinary node never uses a
/// fragment twice) and keeps its number of entries in the high half; its `entryMap` is that number and
/// its `childMap` all ones. So `entryMap & childMap` is nonzero only in a collision node.
@usableFromInline struct _TrieNodeMaps {
    /// Bits 0–15: entries; 16–31: children; 32: a source slot. A collision node keeps its count in bits
    /// 32–63.
    @usableFromInline var bits: UInt64

    @inlinable init(entryMap: UInt32, childMap: UInt32) {
        if childMap == ~0 {
            bits = 0xFFFF_FFFF | UInt64(entryMap) << 32
        } else {
            assert(entryMap >> 16 == 0 && childMap >> 16 == 0, "a fragment of more than 4 bits")
            bits = UInt64(entryMap) | UInt64(childMap) << 16
        }
    }

    /// The maps of an ordinary node recorded in its parent (``_TrieNode/childMaps(childCount:)``): its
    /// entry and child maps, without the source-slot bit, which says nothing about where elements are.
    @inlinable init(recorded: UInt32) {
        bits = UInt64(recorded)
    }

    /// What a parent records of this node's maps (see ``init(recorded:)``).
    @inlinable var recorded: UInt32 { UInt32(truncatingIfNeeded: bits) }

    /// The maps of a collision node of `count` entries, at least one.
    @inlinable static func collision(count: Int) -> _TrieNodeMaps {
        assert(count > 0, "a collision node holds entries")
        return _TrieNodeMaps(entryMap: UInt32(count), childMap: ~0)
    }

    @inlinable var isCollision: Bool { bits & (bits &>> 16) & 0xFFFF != 0 }

    @inlinable var entryMap: UInt32 {
        UInt32(truncatingIfNeeded: isCollision ? bits &>> 32 : bits & 0xFFFF)
    }

    @inlinable var childMap: UInt32 {
        isCollision ? ~0 : UInt32(truncatingIfNeeded: (bits &>> 16) & 0xFFFF)
    }

    /// Whether the node has a slot for a source, after its entries: only copies made to borrow do.
    @inlinable var hasSourceSlot: Bool {
        get { !isCollision && bits & (1 &<< 32) != 0 }
        set {
            assert(!isCollision, "a source slot in a collision node")
            bits = newValue ? bits | (1 &<< 32) : bits & ~(1 &<< 32)
        }
    }

    @inlinable var entryCount: Int { isCollision ? Int(entryMap) : entryMap.nonzeroBitCount }
    @inlinable var childCount: Int { isCollision ? 0 : childMap.nonzeroBitCount }

    /// Whether the node is a single entry that its parent can hold inline instead.
    @inlinable var isSingleEntry: Bool {
        isCollision ? entryMap == 1 : childMap == 0 && entryMap.nonzeroBitCount == 1
    }
}

/// A node of a ``_HashTrie`` in the CHAMP layout, as one allocation: a header of maps (``_TrieNodeMaps``),
/// then the child nodes in fragment order, then each child's maps as recorded when it was put there
/// (``childMaps(childCount:)``), then the entries in fragment order, then, in a node made to borrow, its
/// source (``_TrieNodeSource``). Below the last fragment, a collision node lists entries whose whole hashes are
/// equal.
///
/// A node has exactly the room its elements need: inserting or removing an element makes a new node
/// (one allocation; the elements move if the old node was unique and are copied otherwise), since
/// entries usually hold whole entities.
///
/// **Borrowing.** A copy of a shared node for a mutation would retain every child, and at a million
/// entities the children of the copied nodes are mostly out of the cache: those retains were most of
/// what a snapshot after every event cost. A copy borrows instead: it points to the children of the node
/// it copies (its source, which it retains and which keeps them alive) and owns none of them; it owns a
/// child once it replaces it (``claimChild(at:bit:)``). When nothing but the copy holds the source any
/// more, the copy takes the borrowed children over and lets the source go
/// (``absorbSource(keepingSourceIn:)``). A source never borrows itself (a node that borrows is copied the
/// old way), so a node keeps at most one earlier version alive.
///
/// Not `Sendable` (no `ManagedBuffer` is): ``_HashTrie`` vouches for its nodes.
@usableFromInline final class _TrieNode<Value: _HashTrieValue>: ManagedBuffer<_TrieNodeMaps, _TrieNode<Value>> {
    @inlinable deinit {
        // Most nodes freed by changes gave their contents away first (an absorbed source, a node a
        // splice replaced) and have all-zero maps: the deinit, unspecialized, then reads one word.
        guard maps.bits != 0 else { return }
        releaseContents(keepingChildren: 0)
    }
}

extension _TrieNode {
    /// A node with room for exactly the elements `maps` describe, uninitialized, and an empty source slot
    /// if `withSourceSlot`. It owns its children.
    @inlinable static func allocate(_ maps: _TrieNodeMaps, withSourceSlot: Bool = false) -> _TrieNode {
        var spares = _TrieNodeSpares<Value>.none
        return allocate(maps, withSourceSlot: withSourceSlot, reusing: &spares)
    }

    /// ``allocate(_:withSourceSlot:)``, taking a node of the same size from `spares` if there is one.
    @inlinable static func allocate(
        _ maps: _TrieNodeMaps, withSourceSlot: Bool, reusing spares: inout _TrieNodeSpares<Value>
    ) -> _TrieNode {
        var maps = maps
        if !maps.isCollision { maps.hasSourceSlot = withSourceSlot }
        let units = units(for: maps)
        let node: _TrieNode
        if let spare = spares.take(units: units) {
            spare.maps = maps
            node = spare
            // Its tail held another layout: the children may go where entries were.
            UnsafeMutableRawPointer(node.children).bindMemory(to: _TrieNode.self, capacity: maps.childCount)
        } else {
            node = unsafeDowncast(create(minimumCapacity: units) { _ in maps }, to: _TrieNode.self)
        }
        let (entryCount, childCount) = (maps.entryCount, maps.childCount)
        if childCount > 0 {
            UnsafeMutableRawPointer(node.children + childCount).bindMemory(to: UInt32.self, capacity: childCount)
        }
        if entryCount > 0 {
            UnsafeMutableRawPointer(node.entries(childCount: childCount)).bindMemory(
                to: Value.self, capacity: entryCount)
        }
        if withSourceSlot {
            UnsafeMutableRawPointer(node.sourceSlot(maps)).bindMemory(to: _TrieNodeSource.self, capacity: 1)
                .initialize(to: _TrieNodeSource(node: nil, borrowedMap: 0))
        }
        return node
    }

    /// The size of the tail of a node of layout `maps`, in child references.
    @inlinable static func units(for maps: _TrieNodeMaps) -> Int {
        let (entryCount, childCount) = (maps.entryCount, maps.childCount)
        var bytes =
            childCount * MemoryLayout<_TrieNode>.stride + recordedMapsBytes(childCount: childCount)
            + entryCount * MemoryLayout<Value>.stride
        if entryCount > 0 { bytes += entryAlignmentPadding }
        if maps.hasSourceSlot {
            bytes += MemoryLayout<_TrieNodeSource>.stride + MemoryLayout<_TrieNodeSource>.alignment
        }
        return (bytes + MemoryLayout<_TrieNode>.stride - 1) / MemoryLayout<_TrieNode>.stride
    }

    /// The bytes of the children's recorded maps, rounded up to a whole child reference.
    @inlinable static func recordedMapsBytes(childCount: Int) -> Int {
        let stride = MemoryLayout<_TrieNode>.stride
        return (childCount * MemoryLayout<UInt32>.stride + stride - 1) / stride * stride
    }

    /// The most bytes lost to aligning the entries after the children.
    @inlinable static var entryAlignmentPadding: Int {
        Swift.max(0, MemoryLayout<Value>.alignment - MemoryLayout<_TrieNode>.alignment)
    }

    /// A node of no entries and no children.
    @inlinable static func empty() -> _TrieNode {
        allocate(_TrieNodeMaps(entryMap: 0, childMap: 0))
    }

    // The pointers below stay valid while the node is alive: the caller holds it, or holds a node that
    // holds it. They bypass the dynamic exclusivity checks of a class property: writes happen only
    // on a node the writer just made unique, inside one mutating method of `_HashTrie`.

    @inlinable var maps: _TrieNodeMaps {
        get { withUnsafeMutablePointerToHeader { $0.pointee } }
        set { withUnsafeMutablePointerToHeader { $0.pointee = newValue } }
    }

    /// The fragments whose children this node borrows from its source.
    @inlinable var borrowedMap: UInt32 {
        let maps = self.maps
        return maps.hasSourceSlot ? sourceSlot(maps).pointee.borrowedMap : 0
    }

    /// The slot of a node made to borrow (`maps.hasSourceSlot`), after the entries.
    @inlinable func sourceSlot(_ maps: _TrieNodeMaps) -> UnsafeMutablePointer<_TrieNodeSource> {
        assert(maps.hasSourceSlot, "no source slot")
        let end = UnsafeMutableRawPointer(entries(childCount: maps.childCount) + maps.entryCount)
        return end.alignedUp(for: _TrieNodeSource.self).assumingMemoryBound(to: _TrieNodeSource.self)
    }

    /// The node this one borrows children from, if any.
    @inlinable var source: _TrieNode? {
        let maps = self.maps
        guard maps.hasSourceSlot else { return nil }
        return sourceSlot(maps).pointee.node.map { unsafeDowncast($0, to: _TrieNode.self) }
    }

    /// Releases the children, but those at the fragments `kept` and those the node borrows, then the
    /// entries and the source: for the deinit, and for a source whose borrower takes over the rest.
    @inlinable func releaseContents(keepingChildren kept: UInt32) {
        let maps = self.maps
        let (childCount, skipped) = (maps.childCount, kept | borrowedMap)
        if skipped == 0 {
            _NodeReferences.release(
                UnsafeMutableRawPointer(children), count: childCount, stride: MemoryLayout<AnyObject>.stride)
        } else {
            _NodeReferences.release(UnsafeMutableRawPointer(children), of: maps.childMap, except: skipped)
        }
        // One element at a time: `deinitialize(count:)` goes through the runtime's generic array
        // destruction even where the entry type is known.
        let entries = entries(childCount: childCount)
        for index in 0..<maps.entryCount { (entries + index).deinitialize(count: 1) }
        if maps.hasSourceSlot { sourceSlot(maps).deinitialize(count: 1) }
    }

    @inlinable var children: UnsafeMutablePointer<_TrieNode> {
        withUnsafeMutablePointerToElements { $0 }
    }

    /// The maps of each of the `childCount` children, as recorded when it was put in place: a lookup
    /// reads a child's maps here, in the parent's lines that it reads anyway, so it can go straight to the
    /// entry or grandchild it wants in the child, instead of waiting for the child's header first (one
    /// memory latency less per level at a million entities). A change that replaces a child records the
    /// new child's maps (``recordMaps(ofChildAt:childCount:)``); a node's maps never change in place
    /// while it is a child, but for its source-slot bit, which is not recorded.
    @inlinable func childMaps(childCount: Int) -> UnsafeMutablePointer<UInt32> {
        UnsafeMutableRawPointer(children + childCount).assumingMemoryBound(to: UInt32.self)
    }

    /// Puts `child` in the uninitialized place `index` of this node's `childCount` children, with its
    /// maps recorded: every new child goes in this way, so no record is ever missing.
    @inlinable func initializeChild(_ child: _TrieNode, at index: Int, childCount: Int) {
        (children + index).initialize(to: child)
        (childMaps(childCount: childCount) + index).initialize(to: child.maps.recorded)
    }

    /// Records the maps of the child at `index`, after it changed, in this node, which must be unique.
    @inlinable func recordMaps(ofChildAt index: Int, childCount: Int) {
        childMaps(childCount: childCount)[index] = children[index].maps.recorded
    }

    /// The entries, which follow the `childCount` children and their recorded maps.
    @inlinable func entries(childCount: Int) -> UnsafeMutablePointer<Value> {
        var start = UnsafeMutableRawPointer(children + childCount) + Self.recordedMapsBytes(childCount: childCount)
        if MemoryLayout<Value>.alignment > MemoryLayout<_TrieNode>.alignment {
            start = start.alignedUp(for: Value.self)
        }
        return start.assumingMemoryBound(to: Value.self)
    }

    /// The bits of hash a level consumes: 16 children at most per node. Copying a node for a snapshot
    /// retains every child, and at a million entities the children of the copied nodes are mostly out
    /// of the cache; 16-way nodes halve those retains against 32-way ones, for one more level whose
    /// nodes (4096 at a million entities) stay cached.
    @inlinable static var fragmentBits: Int { 4 }

    @inlinable static func fragment(of hash: UInt64, at shift: Int) -> UInt32 {
        UInt32(truncatingIfNeeded: (hash &>> UInt64(shift)) & ((1 &<< UInt64(fragmentBits)) &- 1))
    }

    /// The index among the set bits of `map` below `bit`.
    @inlinable static func index(of bit: UInt32, in map: UInt32) -> Int {
        (map & (bit &- 1)).nonzeroBitCount
    }

    /// A copy sharing the children and copying the entries: one allocation.
    ///
    /// The copy borrows the children (see the type's documentation) unless this node borrows some
    /// itself, in which case the copy retains them all.
    @inlinable func copy(reusing spares: inout _TrieNodeSpares<Value>) -> _TrieNode {
        absorbSource(keepingSourceIn: &spares)
        let maps = self.maps
        let (entryCount, childCount) = (maps.entryCount, maps.childCount)
        let borrows = childCount > 0 && borrowedMap == 0
        let node = Self.allocate(maps, withSourceSlot: borrows, reusing: &spares)
        if borrows {
            UnsafeMutableRawPointer(node.children).copyMemory(
                from: children, byteCount: childCount * MemoryLayout<_TrieNode>.stride)
            node.sourceSlot(node.maps).pointee = _TrieNodeSource(node: self, borrowedMap: maps.childMap)
        } else {
            Self.copy(childCount, from: children, to: node.children)
        }
        node.childMaps(childCount: childCount).initialize(from: childMaps(childCount: childCount), count: childCount)
        Self.copy(entryCount, from: entries(childCount: childCount), to: node.entries(childCount: childCount))
        return node
    }

    /// Takes over the borrowed children if nothing but this node holds their source any more, and lets
    /// the source go, freeing it and what it does not hand over; the emptied source goes to `spares`
    /// if they have room.
    ///
    /// The node may be shared: only its source slot changes, which no reader looks at, and only the
    /// trie's mutations run this, one at a time (see ``_HashTrie``).
    @inlinable func absorbSource(keepingSourceIn spares: inout _TrieNodeSpares<Value>) {
        let maps = self.maps
        guard maps.hasSourceSlot else { return }
        let slot = sourceSlot(maps)
        guard slot.pointee.borrowedMap != 0, isKnownUniquelyReferenced(&slot.pointee.node) else { return }
        // Unique, so no snapshot reaches the source: it can be emptied before it goes. It is moved out of
        // the slot, not copied, which would retain and release it.
        let borrowed = slot.pointee.borrowedMap
        let source = unsafeDowncast(slot.pointee.node.take().unsafelyUnwrapped, to: _TrieNode.self)
        slot.pointee.borrowedMap = 0
        source.releaseContents(keepingChildren: borrowed)
        let keptUnits = spares.hasRoom ? Self.units(for: source.maps) : nil
        source.maps = _TrieNodeMaps(entryMap: 0, childMap: 0)
        if let keptUnits { spares.keep(source, units: keptUnits) }
    }

    /// Makes this node, which must be unique, own its child at fragment `bit` (index `index`), before the
    /// child is changed or removed: a borrowed child is still its source's.
    @inlinable func claimChild(at index: Int, bit: UInt32) {
        let maps = self.maps
        guard maps.hasSourceSlot else { return }
        let slot = sourceSlot(maps)
        guard slot.pointee.borrowedMap & bit != 0 else { return }
        _ = Unmanaged.passUnretained(children[index]).retain()
        slot.pointee.borrowedMap &= ~bit
        if slot.pointee.borrowedMap == 0 { slot.pointee.node = nil }
    }

    /// Initializes `count` elements at `target` with copies of those at `source`, element by element:
    /// `initialize(from:count:)` goes through the runtime's generic array copy.
    @inlinable static func copy<Element>(
        _ count: Int, from source: UnsafeMutablePointer<Element>, to target: UnsafeMutablePointer<Element>
    ) {
        for index in 0..<count { (target + index).initialize(to: source[index]) }
    }

    @inlinable static func makeUnique(_ node: inout _TrieNode, reusing spares: inout _TrieNodeSpares<Value>) {
        if isKnownUniquelyReferenced(&node) {
            node.absorbSource(keepingSourceIn: &spares)
        } else {
            node = node.copy(reusing: &spares)
        }
    }

    /// Replaces `node` by a node of layout `maps` holding its elements with at most one child and one
    /// entry removed and at most one of each inserted: one allocation. The elements move if `node` was
    /// unique, and are copied otherwise.
    ///
    /// - Parameters:
    ///   - childIndex: Where the child is removed, then where `insertedChild` goes.
    ///   - entryIndex: Where the entry is removed, then where `insertedEntry` goes.
    @inlinable static func splice(
        _ node: inout _TrieNode,
        to maps: _TrieNodeMaps,
        childAt childIndex: Int = 0, removingChild: Bool = false, insertingChild insertedChild: _TrieNode? = nil,
        entryAt entryIndex: Int = 0, removingEntry: Bool = false, insertingEntry insertedEntry: Value? = nil
    ) {
        let oldMaps = node.maps
        let (oldChildCount, oldEntryCount) = (oldMaps.childCount, oldMaps.entryCount)
        let isUnique = isKnownUniquelyReferenced(&node)
        if isUnique && removingChild { node.claimChild(at: childIndex, bit: oldMaps.childMap & ~maps.childMap) }
        // A unique node's children move, borrowed ones included, and its source with them.
        let movedSource = isUnique && node.borrowedMap != 0
        let spliced = allocate(maps, withSourceSlot: movedSource)
        transfer(
            from: node.children, count: oldChildCount, to: spliced.children, at: childIndex,
            removing: removingChild, inserting: insertedChild, moving: isUnique)
        transfer(
            from: node.childMaps(childCount: oldChildCount), count: oldChildCount,
            to: spliced.childMaps(childCount: maps.childCount), at: childIndex,
            removing: removingChild, inserting: insertedChild?.maps.recorded, moving: isUnique)
        transfer(
            from: node.entries(childCount: oldChildCount), count: oldEntryCount,
            to: spliced.entries(childCount: maps.childCount), at: entryIndex,
            removing: removingEntry, inserting: insertedEntry, moving: isUnique)
        if movedSource { swap(&spliced.sourceSlot(spliced.maps).pointee, &node.sourceSlot(node.maps).pointee) }
        // The old node gave its elements away: it must not deinitialize them again.
        if isUnique { node.maps = _TrieNodeMaps(entryMap: 0, childMap: 0) }
        node = spliced
    }

    /// Initializes `target` with the `count` elements of `source`, less the one at `index` if `removing`,
    /// plus `inserted` at `index`. With `moving`, `source` is left deinitialized.
    @inlinable static func transfer<Element>(
        from source: UnsafeMutablePointer<Element>, count: Int, to target: UnsafeMutablePointer<Element>,
        at index: Int, removing: Bool, inserting inserted: Element?, moving: Bool
    ) {
        let suffix = index + (removing ? 1 : 0)
        let targetSuffix = index + (inserted == nil ? 0 : 1)
        if moving {
            target.moveInitialize(from: source, count: index)
            if removing { (source + index).deinitialize(count: 1) }
            (target + targetSuffix).moveInitialize(from: source + suffix, count: count - suffix)
        } else {
            copy(index, from: source, to: target)
            copy(count - suffix, from: source + suffix, to: target + targetSuffix)
        }
        if let inserted { (target + index).initialize(to: inserted) }
    }
}
