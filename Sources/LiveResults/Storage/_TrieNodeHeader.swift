/// The header of a ``_TrieNode``: its maps (which say which of its children it borrows rather than
/// owns), and the node it borrows them from.
///
/// A copy of a shared node for a mutation would retain every child, and at a million entities the
/// children of the copied nodes are mostly out of the cache: those retains were most of what a snapshot
/// after every event cost. A copy borrows instead: it points to the children of the node it copies (its
/// `source`, which it retains), owns none of them, and keeps the source alive, which keeps them alive.
/// The copy owns a child only once it replaces it. When the copy is next copied or changed and nothing
/// but the copy holds its source any more, the source hands over the borrowed children (see
/// ``_TrieNode/absorbSource()``), so a chain of versions never grows beyond one source per node.
@usableFromInline struct _TrieNodeHeader {
    /// The node's maps. Their `borrowedMap`, the fragments whose children `source` owns, is zero when
    /// `source` is nil, except in a source that has handed its children over and is about to be freed.
    @usableFromInline var maps: _TrieNodeMaps
    /// The node that owns the borrowed children, kept alive by this one. Never itself a borrower: a
    /// node with a source lends nothing (its copies retain every child).
    @usableFromInline var source: AnyObject?

    @inlinable init(maps: _TrieNodeMaps) {
        self.maps = maps
        // A new node owns its children until it is told otherwise.
        if !maps.isCollision { self.maps.borrowedMap = 0 }
        self.source = nil
    }
}
