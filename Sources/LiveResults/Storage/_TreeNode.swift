/// A node of a ``_Tree``: a leaf of elements or an internal node of children, with the count, weight
/// and first key of its subtree cached so that searches never scan below it.
///
/// One allocation: the header (``_TreeNodeHeader``) and then, in the tail, the leaf's elements or the
/// internal node's children, with room for the node's capacity plus one. A node read at a million
/// entities is mostly out of the cache; with its elements in a separate array, every read cost a cache
/// and a TLB miss on the node and another on the array.
///
/// Nodes are shared between tree versions (snapshots) and copied on write along the mutated path.
/// Not `Sendable` (no `ManagedBuffer` is): ``_Tree`` vouches for its nodes.
@usableFromInline
final class _TreeNode<Element: _TreeElement>:
    ManagedBuffer<_TreeNodeHeader<Element.Key>, _TreeChild<Element>>
{
    @inlinable deinit {
        if isLeaf {
            elements.base.deinitialize(count: width)
        } else {
            children.base.deinitialize(count: width)
        }
    }
}

extension _TreeNode {
    /// The most elements of a leaf.
    @inlinable static var leafCapacity: Int { Element.treeNodeCapacity }
    /// The most children of an internal node. Fewer than a leaf's elements: copying an internal node for
    /// a snapshot retains every child, and a search sums the counts of the children before its target,
    /// so both cost in proportion to the width, while a leaf of plain slots copies as one block.
    @inlinable static var branchCapacity: Int { Swift.max(4, Element.treeNodeCapacity / 4) }

    /// The most elements or children of this node.
    @inlinable var maximumWidth: Int { isLeaf ? Self.leafCapacity : Self.branchCapacity }
    /// The fewest elements or children of this node, unless it is the root.
    @inlinable var minimumWidth: Int { maximumWidth / 2 }

    /// The most bytes lost to aligning a leaf's elements in a tail laid out for children.
    @inlinable static var elementAlignmentPadding: Int {
        Swift.max(0, MemoryLayout<Element>.alignment - MemoryLayout<_TreeChild<Element>>.alignment)
    }

    /// A node of the kind, first key, count and weight of `header`, holding no elements or children yet.
    @inlinable static func allocate(_ header: _TreeNodeHeader<Element.Key>) -> _TreeNode {
        var header = header
        header.width = 0
        let units: Int
        if header.isLeaf {
            let bytes = (leafCapacity + 1) * MemoryLayout<Element>.stride + elementAlignmentPadding
            let unit = MemoryLayout<_TreeChild<Element>>.stride
            units = (bytes + unit - 1) / unit
        } else {
            units = branchCapacity + 1
        }
        let node = unsafeDowncast(create(minimumCapacity: units) { _ in header }, to: _TreeNode.self)
        if header.isLeaf {
            UnsafeMutableRawPointer(node.elements.base).bindMemory(to: Element.self, capacity: leafCapacity + 1)
        }
        return node
    }

    /// A leaf holding `elements`, at least one.
    @inlinable static func leaf(_ elements: some Sequence<Element>) -> _TreeNode {
        make(isLeaf: true, holding: elements, firstKey: \.treeKey, in: \.elements)
    }

    /// An internal node holding `children`, at least one.
    @inlinable static func branch(_ children: some Sequence<_TreeChild<Element>>) -> _TreeNode {
        make(isLeaf: false, holding: children, firstKey: \.firstKey, in: \.children)
    }

    /// A node holding `contents`, at least one, read once (the first for the header, the rest after).
    @inlinable static func make<Contents: Sequence>(
        isLeaf: Bool,
        holding contents: Contents,
        firstKey: (Contents.Element) -> Element.Key,
        in buffer: (_TreeNode) -> _TreeNodeBuffer<Element.Key, Contents.Element>
    ) -> _TreeNode {
        var remaining = contents.makeIterator()
        let first = remaining.next()!
        let node = allocate(_TreeNodeHeader(isLeaf: isLeaf, firstKey: firstKey(first)))
        let target = buffer(node)
        target.append(first)
        while let next = remaining.next() { target.append(next) }
        node.refreshSummary()
        return node
    }

    // The pointers below stay valid while the node is alive: the caller holds it, or holds a node that
    // holds it. They bypass the dynamic exclusivity checks of class properties, which cost about a sixth
    // of an event in the profile: writes happen only on a node the writer just made unique, inside one
    // mutating method of `_Tree`, and never overlap another access to the same node.

    @inlinable var headerAddress: UnsafeMutablePointer<_TreeNodeHeader<Element.Key>> {
        withUnsafeMutablePointerToHeader { $0 }
    }

    /// The elements of a leaf.
    @inlinable var elements: _TreeNodeBuffer<Element.Key, Element> {
        assert(isLeaf, "the elements of an internal node")
        var start = UnsafeMutableRawPointer(withUnsafeMutablePointerToElements { $0 })
        if MemoryLayout<Element>.alignment > MemoryLayout<_TreeChild<Element>>.alignment {
            start = start.alignedUp(for: Element.self)
        }
        return _TreeNodeBuffer(
            header: headerAddress, base: start.assumingMemoryBound(to: Element.self), room: Self.leafCapacity + 1)
    }

    /// The children of an internal node.
    @inlinable var children: _TreeNodeBuffer<Element.Key, _TreeChild<Element>> {
        assert(!isLeaf, "the children of a leaf")
        return _TreeNodeBuffer(
            header: headerAddress, base: withUnsafeMutablePointerToElements { $0 }, room: Self.branchCapacity + 1)
    }

    @inlinable var count: Int {
        get { headerAddress.pointee.count }
        set { headerAddress.pointee.count = newValue }
    }

    @inlinable var weight: Int {
        get { headerAddress.pointee.weight }
        set { headerAddress.pointee.weight = newValue }
    }

    @inlinable var firstKey: Element.Key {
        get { headerAddress.pointee.firstKey }
        set { headerAddress.pointee.firstKey = newValue }
    }

    @inlinable var isLeaf: Bool { headerAddress.pointee.isLeaf }

    /// The number of elements (leaf) or children (internal node).
    @inlinable var width: Int { headerAddress.pointee.width }

    /// A copy holding copies of the elements or children: one allocation.
    @inlinable func copy() -> _TreeNode {
        let node = Self.allocate(headerAddress.pointee)
        if isLeaf {
            node.elements.append(contentsOf: elements)
        } else {
            node.children.append(contentsOf: children)
        }
        return node
    }

    /// Makes `node` uniquely referenced, copying it if another tree version shares it.
    @inlinable static func makeUnique(_ node: inout _TreeNode) {
        if !isKnownUniquelyReferenced(&node) { node = node.copy() }
    }

    /// The child holding `position`, and the position inside it. With `forInsertion`, a position at the
    /// end of a child goes to that child.
    @inlinable func child(containing position: Int, forInsertion: Bool = false) -> (index: Int, offset: Int) {
        let children = self.children
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
            let elements = self.elements
            count = elements.count
            weight = elements.reduce(0) { $0 + $1.treeWeight }
            firstKey = elements[0].treeKey
        } else {
            let children = self.children
            count = children.reduce(0) { $0 + $1.count }
            weight = children.reduce(0) { $0 + $1.weight }
            firstKey = children[0].firstKey
        }
    }

    /// Moves the upper half into a new right sibling.
    @inlinable func split() -> _TreeNode {
        let middle = width / 2
        let sibling = Self.allocate(headerAddress.pointee)
        if isLeaf {
            elements.moveSuffix(from: middle, appendingTo: sibling.elements)
        } else {
            children.moveSuffix(from: middle, appendingTo: sibling.children)
        }
        refreshSummary()
        sibling.refreshSummary()
        return sibling
    }
}
