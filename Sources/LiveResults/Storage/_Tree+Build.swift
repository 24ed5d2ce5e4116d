extension _Tree {
    /// A tree of `count` elements already in order, the element at each position given by `element`:
    /// the leaves are filled straight from it, without an array of all the elements first.
    ///
    /// - Complexity: O(*n*).
    @inlinable init(count: Int, sortedElements element: (Int) -> Element) {
        guard count > 0 else { return }
        var level = Self.partition(0..<count).map { range in
            var elements = ContiguousArray<Element>()
            elements.reserveCapacity(range.count)
            for position in range { elements.append(element(position)) }
            return _TreeNode(leaf: elements)
        }
        while level.count > 1 {
            level = Self.partition(level).map { _TreeNode(children: ContiguousArray($0.lazy.map(_TreeChild.init))) }
        }
        root = level.first
    }
}
