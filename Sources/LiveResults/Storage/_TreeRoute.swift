/// How a mutation of a ``_Tree`` finds its place on the way down: by position, or by key.
///
/// Mutating by key in one descent (rather than searching for a position, then descending again to
/// mutate there) halves the nodes an event visits, and the position comes out of the same descent.
@usableFromInline enum _TreeRoute<Element: _TreeElement> {
    /// To a position: an existing element's, or, with `forInsertion`, a position up to the end.
    case position(Int, forInsertion: Bool)
    /// To the boundary of a predicate on keys that is false for a prefix of the elements and true for
    /// the rest: with `forInsertion`, to insert at the boundary; otherwise to the last element before it.
    /// The predicate escapes only for the duration of one descent (`withoutActuallyEscaping`).
    case boundary((Element.Key) -> Bool, forInsertion: Bool)

    /// The child of an internal node to descend into, the number of elements before it, and the route
    /// inside it.
    @inlinable func child(of node: _TreeNode<Element>) -> (index: Int, before: Int, route: _TreeRoute) {
        switch self {
        case .position(let position, let forInsertion):
            let child = node.child(containing: position, forInsertion: forInsertion)
            return (child.index, position - child.offset, .position(child.offset, forInsertion: forInsertion))
        case .boundary(let isPast, _):
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
    @inlinable func index(in leaf: _TreeNode<Element>) -> Int {
        switch self {
        case .position(let position, _):
            return position
        case .boundary(let isPast, let forInsertion):
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
