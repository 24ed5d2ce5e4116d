/// How a mutation of a ``_Tree`` finds its place on the way down: by position, or by key.
///
/// Mutating by key in one descent (rather than searching for a position, then descending again to
/// mutate there) halves the nodes an event visits, and the position comes out of the same descent.
///
/// A route by key follows a predicate on keys that is false for a prefix of the elements and true for
/// the rest. The predicate is not stored in the route but passed beside it, as a non-escaping closure:
/// stored, it would have to escape (`withoutActuallyEscaping`), and its context, which captures the
/// storage, was then allocated on the heap for every search.
@usableFromInline enum _TreeRoute: Sendable {
    /// To a position: an existing element's, or, with `forInsertion`, a position up to the end.
    case position(Int, forInsertion: Bool)
    /// To the boundary of the predicate: with `forInsertion`, to insert at the boundary; otherwise to
    /// the last element before it.
    case boundary(forInsertion: Bool)

    /// The predicate of a route by position, which never calls it.
    @inlinable static func unused<Key>(_ key: Key) -> Bool { false }

    /// The child of an internal node to descend into, the number of elements before it, and the route
    /// inside it.
    @inlinable @inline(__always) func child<Element>(
        of node: _TreeNode<Element>, isPast: (Element.Key) -> Bool
    ) -> (index: Int, before: Int, route: _TreeRoute) {
        switch self {
        case .position(let position, let forInsertion):
            let child = node.child(containing: position, forInsertion: forInsertion)
            return (child.index, position - child.offset, .position(child.offset, forInsertion: forInsertion))
        case .boundary:
            // The last child whose first key is before the boundary holds the boundary.
            var low = 1
            var high = node.children.count
            while low < high {
                let middle = (low + high) / 2
                if isPast(node.children[middle].firstKey) { high = middle } else { low = middle + 1 }
            }
            var before = 0
            for index in 0..<(low - 1) { before += node.children[index].count }
            return (low - 1, before, self)
        }
    }

    /// The index in a leaf where the route ends.
    @inlinable @inline(__always) func index<Element>(in leaf: _TreeNode<Element>, isPast: (Element.Key) -> Bool) -> Int
    {
        switch self {
        case .position(let position, _):
            return position
        case .boundary(let forInsertion):
            var low = 0
            var high = leaf.elements.count
            while low < high {
                let middle = (low + high) / 2
                if isPast(leaf.elements[middle].treeKey) { high = middle } else { low = middle + 1 }
            }
            return forInsertion ? low : low - 1
        }
    }
}
