extension _Tree {
    /// A tree of `count` elements already in order, the element at each position given by `element`:
    /// the leaves are filled straight from it, without an array of all the elements first.
    ///
    /// - Complexity: O(*n*).
    @inlinable init(count: Int, sortedElements element: (Int) -> Element) {
        let leaves = withoutActuallyEscaping(element) { element in
            Self.partition(0..<count, capacity: _TreeNode<Element>.leafCapacity).map {
                _TreeNode.leaf($0.lazy.map(element))
            }
        }
        root = Self.root(over: leaves)
    }
}
