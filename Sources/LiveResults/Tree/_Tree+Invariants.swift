extension _Tree {
    /// Traps unless the tree is well formed: every node but the root at least half full and none over
    /// capacity, all leaves at one depth, every node's height one more than its children's, and every
    /// cached count, weight and first key exact.
    ///
    /// - Parameter keysAreEqual: Compares cached first keys with the elements' keys.
    /// - Complexity: O(*n*); for tests.
    @inlinable func _checkInvariants(keysAreEqual: (Element.Key, Element.Key) -> Bool) {
        guard let root else { return }
        var leafDepth: Int?
        func check(_ node: _TreeNode<Element>, depth: Int, isRoot: Bool) -> (
            count: Int, weight: Int, first: Element.Key
        ) {
            precondition(node.width > 0 && node.width <= node.maximumWidth, "node width \(node.width)")
            precondition(isRoot || node.width >= node.minimumWidth, "underfull node of \(node.width)")
            var summary: (count: Int, weight: Int, first: Element.Key?) = (0, 0, nil)
            if node.isLeaf {
                precondition(leafDepth == nil || leafDepth == depth, "leaves at different depths")
                leafDepth = depth
                summary = (
                    node.elements.count, node.elements.reduce(0) { $0 + $1.treeWeight }, node.elements[0].treeKey
                )
            } else {
                for child in node.children {
                    precondition(child.node.height + 1 == node.height, "a child's height is not one below")
                    let childSummary = check(child.node, depth: depth + 1, isRoot: false)
                    precondition(child.count == childSummary.count, "stale count of a child")
                    precondition(child.weight == childSummary.weight, "stale weight of a child")
                    precondition(keysAreEqual(child.firstKey, childSummary.first), "stale first key of a child")
                    summary.count += childSummary.count
                    summary.weight += childSummary.weight
                    summary.first = summary.first ?? childSummary.first
                }
            }
            precondition(node.count == summary.count, "cached count \(node.count), actual \(summary.count)")
            precondition(node.weight == summary.weight, "cached weight \(node.weight), actual \(summary.weight)")
            return (summary.count, summary.weight, summary.first!)
        }
        _ = check(root, depth: 0, isRoot: true)
    }
}
