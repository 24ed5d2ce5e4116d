/// A node of a ``_Tree``: a leaf of elements or an internal node of children, with the count, weight
/// and first key of its subtree cached so that searches never scan below it.
///
/// Nodes are shared between tree versions (snapshots) and copied on write along the mutated path.
@usableFromInline final class _TreeNode<Element: _TreeElement>: @unchecked Sendable {
    // @unchecked Sendable: a node is mutated only while uniquely referenced (the tree checks
    // `isKnownUniquelyReferenced` before every write and copies otherwise), so a node reachable from
    // more than one tree, or from another thread, is never written again.

    /// The most elements of a leaf.
    @inlinable static var leafCapacity: Int { Element.treeNodeCapacity }
    /// The most children of an internal node. Fewer than a leaf's elements: copying an internal node for
    /// a snapshot retains every child, and a search sums the counts of the children before its target,
    /// so both cost in proportion to the width, while a leaf of plain slots copies as one block.
    @inlinable static var branchCapacity: Int { Swift.max(4, Element.treeNodeCapacity / 4) }

    /// The most elements or children of this node.
    @inlinable var capacity: Int { isLeaf ? Self.leafCapacity : Self.branchCapacity }
    /// The fewest elements or children of this node, unless it is the root.
    @inlinable var minimum: Int { capacity / 2 }

    // Unchecked exclusivity: the dynamic checks of class properties cost about a sixth of an event in
    // the profile. Every write happens on a node the writer just made unique, inside one mutating
    // method of `_Tree`, and never overlaps another access to the same node.
    @exclusivity(unchecked) @usableFromInline var elements: ContiguousArray<Element>
    @exclusivity(unchecked) @usableFromInline var children: ContiguousArray<_TreeChild<Element>>
    @exclusivity(unchecked) @usableFromInline var count: Int
    @exclusivity(unchecked) @usableFromInline var weight: Int
    @exclusivity(unchecked) @usableFromInline var firstKey: Element.Key

    @inlinable init(leaf elements: ContiguousArray<Element>) {
        self.elements = elements
        self.children = []
        self.count = elements.count
        self.weight = elements.reduce(0) { $0 + $1.treeWeight }
        self.firstKey = elements[0].treeKey
    }

    @inlinable init(children: ContiguousArray<_TreeChild<Element>>) {
        self.elements = []
        self.children = children
        self.count = children.reduce(0) { $0 + $1.count }
        self.weight = children.reduce(0) { $0 + $1.weight }
        self.firstKey = children[0].firstKey
    }

    @inlinable init(copying node: _TreeNode) {
        elements = node.elements.copyWithRoomForOneMore()
        children = node.children.copyWithRoomForOneMore()
        count = node.count
        weight = node.weight
        firstKey = node.firstKey
    }

    @inlinable var isLeaf: Bool { children.isEmpty }

    /// The number of elements (leaf) or children (internal node).
    @inlinable var width: Int { isLeaf ? elements.count : children.count }

    /// Makes `node` uniquely referenced, copying it if another tree version shares it.
    @inlinable static func makeUnique(_ node: inout _TreeNode) {
        if !isKnownUniquelyReferenced(&node) { node = _TreeNode(copying: node) }
    }

    /// The child holding `position`, and the position inside it. With `forInsertion`, a position at the
    /// end of a child goes to that child.
    @inlinable func child(containing position: Int, forInsertion: Bool = false) -> (index: Int, offset: Int) {
        var offset = position
        let last = children.count - 1
        for index in 0..<last {
            let count = children[index].count
            if offset < count || (forInsertion && offset == count) { return (index, offset) }
            offset -= count
        }
        return (last, offset)
    }

    /// Recomputes the cached count, weight and first key from the direct contents.
    @inlinable func refreshSummary() {
        if isLeaf {
            count = elements.count
            weight = elements.reduce(0) { $0 + $1.treeWeight }
            firstKey = elements[0].treeKey
        } else {
            count = children.reduce(0) { $0 + $1.count }
            weight = children.reduce(0) { $0 + $1.weight }
            firstKey = children[0].firstKey
        }
    }

    /// Moves the upper half into a new right sibling.
    @inlinable func split() -> _TreeNode {
        let middle = width / 2
        let sibling: _TreeNode
        if isLeaf {
            sibling = _TreeNode(leaf: ContiguousArray(elements[middle...]))
            elements.removeSubrange(middle...)
        } else {
            sibling = _TreeNode(children: ContiguousArray(children[middle...]))
            children.removeSubrange(middle...)
        }
        refreshSummary()
        return sibling
    }
}

extension ContiguousArray {
    /// A copy with a buffer of its own and room for one more element, for a node copied because a
    /// mutation is about to change it.
    ///
    /// Sharing the buffer and letting the mutation copy it on write would go through the runtime's
    /// generic copy (a value-witness call per element, into a buffer grown for appending); this loop is
    /// specialized for the element type, which made path copies under a held snapshot cheaper.
    @inlinable func copyWithRoomForOneMore() -> ContiguousArray {
        guard !isEmpty else { return [] }
        return ContiguousArray(unsafeUninitializedCapacity: count + 1) { buffer, initialized in
            for index in indices { (buffer.baseAddress! + index).initialize(to: self[index]) }
            initialized = count
        }
    }
}
