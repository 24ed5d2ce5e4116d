/// The header of a ``_TreeNode``: the summary of its subtree that searches read instead of scanning
/// below it, and what its tail holds.
@usableFromInline struct _TreeNodeHeader<Key> {
    /// The number of elements in the subtree.
    @usableFromInline var count: Int
    /// The sum of the weights of the elements in the subtree.
    @usableFromInline var weight: Int
    /// The number of elements (leaf) or children (internal node) initialized in the tail.
    @usableFromInline var width: Int
    /// The key of the first element of the subtree.
    @usableFromInline var firstKey: Key
    /// Whether the tail holds elements rather than children.
    @usableFromInline var isLeaf: Bool

    /// The header of a node holding nothing yet, whose first key will be `firstKey`.
    @inlinable init(isLeaf: Bool, firstKey: Key) {
        self.count = 0
        self.weight = 0
        self.width = 0
        self.firstKey = firstKey
        self.isLeaf = isLeaf
    }
}
