extension _Tree {
    /// A tree of `count` elements already in order, the element at each position given by `element`:
    /// the leaves are filled straight from it, without an array of all the elements first.
    ///
    /// - Complexity: O(*n*).
    @inlinable init(count: Int, sortedElements element: (Int) -> Element) {
        let leaves = Self.partition(0..<count, capacity: _TreeNode<Element>.leafCapacity).map { range in
            var elements = ContiguousArray<Element>()
            elements.reserveCapacity(range.count)
            for position in range { elements.append(element(position)) }
            return _TreeNode(leaf: elements)
        }
        root = Self.root(over: leaves)
    }
}
