/// The elements of a leaf or the children of an internal node, in the tail of the ``_TreeNode``'s own
/// allocation, as a collection.
///
/// A view, not an owner: it holds pointers into the node, valid while the node is alive (its holder
/// keeps it alive), and its mutations write the node, so they are `nonmutating` and allowed only on a
/// node made unique first. The number of elements lives in the node's header, so every view of one
/// node agrees on it.
@usableFromInline struct _TreeNodeBuffer<Element>: RandomAccessCollection {
    @usableFromInline let header: UnsafeMutablePointer<_TreeNodeHeader>
    @usableFromInline let base: UnsafeMutablePointer<Element>
    /// The most elements the tail has room for: a node's capacity plus one, since a node overflows by
    /// one before it splits.
    @usableFromInline let room: Int

    @inlinable init(header: UnsafeMutablePointer<_TreeNodeHeader>, base: UnsafeMutablePointer<Element>, room: Int) {
        self.header = header
        self.base = base
        self.room = room
    }

    @inlinable var startIndex: Int { 0 }
    @inlinable var endIndex: Int { header.pointee.width }

    /// An addressor, so that a mutation through it (`body(&node.elements[index])`) writes in place.
    @inlinable subscript(position: Int) -> Element {
        unsafeAddress {
            precondition(position >= 0 && position < endIndex, "index out of range")
            return UnsafePointer(base + position)
        }
        nonmutating unsafeMutableAddress {
            precondition(position >= 0 && position < endIndex, "index out of range")
            return base + position
        }
    }

    @inlinable nonmutating func insert(_ element: Element, at index: Int) {
        let width = endIndex
        precondition(index >= 0 && index <= width && width < room, "insertion out of range")
        (base + index + 1).moveInitialize(from: base + index, count: width - index)
        (base + index).initialize(to: element)
        header.pointee.width = width + 1
    }

    @inlinable nonmutating func append(_ element: Element) {
        insert(element, at: endIndex)
    }

    /// Appends copies of the elements of `other`, one by one: the loop is specialized for the element
    /// type, where `initialize(from:count:)` would go through the runtime's generic array copy.
    @inlinable nonmutating func append(contentsOf other: _TreeNodeBuffer) {
        let (width, added) = (endIndex, other.endIndex)
        precondition(width + added <= room, "too many elements")
        for index in 0..<added { (base + width + index).initialize(to: other.base[index]) }
        header.pointee.width = width + added
    }

    @discardableResult
    @inlinable nonmutating func remove(at index: Int) -> Element {
        let width = endIndex
        precondition(index >= 0 && index < width, "index out of range")
        let removed = (base + index).move()
        (base + index).moveInitialize(from: base + index + 1, count: width - index - 1)
        header.pointee.width = width - 1
        return removed
    }

    @inlinable nonmutating func removeFirst() -> Element { remove(at: 0) }
    @inlinable nonmutating func removeLast() -> Element { remove(at: endIndex - 1) }

    /// Moves the elements from `index` on to the end of `target`, a view of another node.
    @inlinable nonmutating func moveSuffix(from index: Int, appendingTo target: _TreeNodeBuffer) {
        let (width, targetWidth) = (endIndex, target.endIndex)
        precondition(index >= 0 && index <= width && targetWidth + width - index <= target.room, "move out of range")
        (target.base + targetWidth).moveInitialize(from: base + index, count: width - index)
        target.header.pointee.width = targetWidth + width - index
        header.pointee.width = index
    }
}
