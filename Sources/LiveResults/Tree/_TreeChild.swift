/// A child of an internal ``_TreeNode``, with its subtree's count, weight and first key kept beside the
/// reference.
///
/// Searches read the summaries of many children but descend into one. Kept in the parent, those reads
/// stay inside the parent's allocation instead of touching every child node, which at a million entities
/// are mostly out of the cache.
@usableFromInline struct _TreeChild<Element: _TreeElement> {
    @usableFromInline var node: _TreeNode<Element>
    @usableFromInline var count: Int
    @usableFromInline var weight: Int
    @usableFromInline var firstKey: Element.Key

    @inlinable init(_ node: _TreeNode<Element>) {
        self.node = node
        self.count = node.count
        self.weight = node.weight
        self.firstKey = node.firstKey
    }

    /// Copies the summary of the node again, after a change below it.
    @inlinable mutating func refresh() {
        count = node.count
        weight = node.weight
        firstKey = node.firstKey
    }
}
