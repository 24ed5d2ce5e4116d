/// What a ``_Tree`` needs of its elements: a key its searches look at, and a weight it sums.
///
/// Item trees hold entity slots of weight 1; the section tree holds sections weighted by their number
/// of items, so that a global position maps to a section and an item in O(log *n*).
@usableFromInline protocol _TreeElement: Sendable {
    associatedtype Key: Sendable
    /// What searches compare; a node caches its first element's key.
    var treeKey: Key { get }
    /// What the tree sums per subtree.
    var treeWeight: Int { get }
    /// The most elements of a leaf and children of an internal node; small in tests, to exercise deep trees.
    static var treeNodeCapacity: Int { get }
}

extension _TreeElement {
    /// 60, not 64: a leaf of 60 slots of 16 bytes, with its header and its room for one more, is a
    /// 1024-byte allocation, which glibc's per-thread cache serves (up to 1032 bytes); a leaf of 64 is
    /// not, and a snapshot after every event, which copies a leaf and frees the one it replaced each
    /// time, cost about 8% more at a million entities.
    @inlinable static var treeNodeCapacity: Int { 60 }
}
