/// The slot of a ``_TrieNode`` made to borrow children: the node that owns them, and their fragments.
///
/// It sits after the node's entries, where readers never look, so a change may update it while
/// snapshots share the node (the node's maps, which readers do read, never change once it is shared).
@usableFromInline struct _TrieNodeSource {
    /// The node that owns the borrowed children, kept alive by this slot. Never itself a borrower.
    @usableFromInline var node: AnyObject?
    /// The fragments of the children `node` owns. Zero exactly when `node` is nil.
    @usableFromInline var borrowedMap: UInt32

    @inlinable init(node: AnyObject?, borrowedMap: UInt32) {
        self.node = node
        self.borrowedMap = borrowedMap
    }
}
