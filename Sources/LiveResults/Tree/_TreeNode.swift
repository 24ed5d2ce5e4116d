/// A node of a ``_Tree``: a leaf of elements or an internal node of children, with the count and
/// weight of its subtree cached (and each child's first key beside it) so that searches never scan
/// below it.
///
/// One allocation: the header (``_TreeNodeHeader``) and then, in the tail, the leaf's elements or the
/// internal node's children, with room for the node's capacity plus one. A node read at a million
/// entities is mostly out of the cache; with its elements in a separate array, every read cost a cache
/// and a TLB miss on the node and another on the array.
///
/// Nodes are shared between tree versions (snapshots) and copied on write along the mutated path.
/// Not `Sendable` (no `ManagedBuffer` is): ``_Tree`` vouches for its nodes.
@usableFromInline
final class _TreeNode<Element: _TreeElement>: ManagedBuffer<_TreeNodeHeader, UInt64> {
    // The deinit runs unspecialized: it reads the concrete header, which says where the tail's contents
    // start and how far apart children are, so that freeing a node looks no generic metadata up (the
    // element type itself comes with the class, at no cost).
    @inlinable deinit {
        let header = withUnsafeMutablePointerToHeader { $0.pointee }
        let start = UnsafeMutableRawPointer(withUnsafeMutablePointerToElements { $0 }) + Int(header.tailPadding)
        if header.isLeaf {
            if !_isPOD(Element.self) {
                start.assumingMemoryBound(to: Element.self).deinitialize(count: header.width)
            }
        } else if header.childrenAreReferencesAndData {
            _NodeReferences.release(start, count: header.width, stride: Int(header.childStride))
        } else {
            start.assumingMemoryBound(to: _TreeChild<Element>.self).deinitialize(count: header.width)
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
    @inlinable var minimumWidth: Int { Self.minimumWidth(isLeaf: isLeaf) }

    /// The fewest elements (`isLeaf`) or children of a node other than the root: half its capacity.
    @inlinable static func minimumWidth(isLeaf: Bool) -> Int {
        (isLeaf ? leafCapacity : branchCapacity) / 2
    }

    /// A node at `height` (0 for a leaf), holding no elements or children yet.
    @inlinable static func allocate(height: UInt8) -> _TreeNode {
        let isLeaf = height == 0
        let (stride, alignment, room) =
            isLeaf
            ? (MemoryLayout<Element>.stride, MemoryLayout<Element>.alignment, leafCapacity + 1)
            : (
                MemoryLayout<_TreeChild<Element>>.stride, MemoryLayout<_TreeChild<Element>>.alignment,
                branchCapacity + 1
            )
        let padding = Swift.max(0, alignment - MemoryLayout<UInt64>.alignment)
        let unit = MemoryLayout<UInt64>.stride
        assert(MemoryLayout<_TreeChild<Element>>.offset(of: \.node) == 0, "the deinit finds a child's node first")
        let header = _TreeNodeHeader(
            height: height, childrenAreReferencesAndData: _isPOD(Element.Key.self), tailPadding: 0,
            childStride: UInt16(MemoryLayout<_TreeChild<Element>>.stride))
        let node = unsafeDowncast(
            create(minimumCapacity: (room * stride + padding + unit - 1) / unit) { _ in header }, to: _TreeNode.self)
        let tail = UnsafeMutableRawPointer(node.withUnsafeMutablePointerToElements { $0 })
        let start = node.contentsStart(isLeaf: isLeaf)
        node.headerAddress.pointee.tailPadding = UInt8(start - tail)
        if isLeaf {
            start.bindMemory(to: Element.self, capacity: room)
        } else {
            start.bindMemory(to: _TreeChild<Element>.self, capacity: room)
        }
        return node
    }

    /// A leaf holding `elements`, at least one.
    @inlinable static func leaf(_ elements: some Sequence<Element>) -> _TreeNode {
        make(height: 0, holding: elements, in: \.elements)
    }

    /// An internal node holding `children`, at least one, all of height `height - 1`.
    @inlinable static func branch(_ children: some Sequence<_TreeChild<Element>>, height: UInt8) -> _TreeNode {
        make(height: height, holding: children, in: \.children)
    }

    /// A node holding `contents`, at least one.
    @inlinable static func make<Contents: Sequence>(
        height: UInt8,
        holding contents: Contents,
        in buffer: (_TreeNode) -> _TreeNodeBuffer<Contents.Element>
    ) -> _TreeNode {
        let node = allocate(height: height)
        let target = buffer(node)
        for element in contents { target.append(element) }
        precondition(node.width > 0, "a node holds at least one element or child")
        node.refreshSummary()
        return node
    }

    // The pointers below stay valid while the node is alive: the caller holds it, or holds a node that
    // holds it. They bypass the dynamic exclusivity checks of class properties, which cost about a sixth
    // of an event in the profile: writes happen only on a node the writer just made unique, inside one
    // mutating method of `_Tree`, and never overlap another access to the same node.

    @inlinable var headerAddress: UnsafeMutablePointer<_TreeNodeHeader> {
        withUnsafeMutablePointerToHeader { $0 }
    }

    /// Where the tail's elements (`isLeaf`) or children start, from the node's address alone: unlike
    /// ``tailStart``, it does not wait for the header to arrive.
    @inlinable func contentsStart(isLeaf: Bool) -> UnsafeMutableRawPointer {
        let tail = UnsafeMutableRawPointer(withUnsafeMutablePointerToElements { $0 })
        let alignment = isLeaf ? MemoryLayout<Element>.alignment : MemoryLayout<_TreeChild<Element>>.alignment
        return alignment > MemoryLayout<UInt64>.alignment ? tail.alignedUp(toMultipleOf: alignment) : tail
    }

    /// Starts loading the lines of the child at `index` that a search of it reads (see ``_Prefetch``),
    /// before anything of the child is read: this node's height says whether the child is a leaf, and the
    /// child's count beside it is then its number of elements. Of an internal child, the header and the
    /// children that every internal node but the root has are loaded.
    @inlinable func prefetch(childAt index: Int) {
        let slot = children.base + index
        let (childIsLeaf, count) = (height == 1, slot.pointee.count)
        // The child's address, read without a retain: `node` is a child's first field.
        let address = UnsafeRawPointer(slot).load(as: UnsafeRawPointer.self)
        Unmanaged<_TreeNode>.fromOpaque(address)._withUnsafeGuaranteedRef { child in
            let header = _Prefetch.load(child.headerAddress)
            let start = child.contentsStart(isLeaf: childIsLeaf)
            let contents =
                childIsLeaf
                ? _Prefetch.load(elementsFrom: start.assumingMemoryBound(to: Element.self), count: count)
                : _Prefetch.load(
                    elementsFrom: start.assumingMemoryBound(to: _TreeChild<Element>.self),
                    count: Self.minimumWidth(isLeaf: false))
            _Prefetch.keep(header | contents)
        }
    }

    /// Where the tail's elements or children start.
    @inlinable var tailStart: UnsafeMutableRawPointer {
        UnsafeMutableRawPointer(withUnsafeMutablePointerToElements { $0 }) + Int(headerAddress.pointee.tailPadding)
    }

    /// The elements of a leaf.
    @inlinable var elements: _TreeNodeBuffer<Element> {
        assert(isLeaf, "the elements of an internal node")
        return _TreeNodeBuffer(
            header: headerAddress, base: tailStart.assumingMemoryBound(to: Element.self), room: Self.leafCapacity + 1)
    }

    /// The children of an internal node.
    @inlinable var children: _TreeNodeBuffer<_TreeChild<Element>> {
        assert(!isLeaf, "the children of a leaf")
        return _TreeNodeBuffer(
            header: headerAddress, base: tailStart.assumingMemoryBound(to: _TreeChild<Element>.self),
            room: Self.branchCapacity + 1)
    }

    @inlinable var count: Int {
        get { headerAddress.pointee.count }
        set { headerAddress.pointee.count = newValue }
    }

    @inlinable var weight: Int {
        get { headerAddress.pointee.weight }
        set { headerAddress.pointee.weight = newValue }
    }

    /// The key of the first element of the subtree: read from the first element or child, which the
    /// node holds anyway, rather than cached beside them.
    @inlinable var firstKey: Element.Key {
        isLeaf ? elements[0].treeKey : children[0].firstKey
    }

    @inlinable var isLeaf: Bool { headerAddress.pointee.isLeaf }

    @inlinable var height: UInt8 { headerAddress.pointee.height }

    /// The number of elements (leaf) or children (internal node).
    @inlinable var width: Int { headerAddress.pointee.width }

    /// A copy holding copies of the elements or children: one allocation.
    @inlinable func copy() -> _TreeNode {
        let node = Self.allocate(height: height)
        (node.count, node.weight) = (count, weight)
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

    /// Recomputes the cached count and weight from the direct contents.
    @inlinable func refreshSummary() {
        if isLeaf {
            let elements = self.elements
            count = elements.count
            weight = elements.reduce(0) { $0 + $1.treeWeight }
        } else {
            let children = self.children
            count = children.reduce(0) { $0 + $1.count }
            weight = children.reduce(0) { $0 + $1.weight }
        }
    }

    /// Moves the upper half into a new right sibling.
    @inlinable func split() -> _TreeNode {
        let middle = width / 2
        let sibling = Self.allocate(height: height)
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
