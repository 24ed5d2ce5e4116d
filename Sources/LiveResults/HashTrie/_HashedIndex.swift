/// A value's index in a collection, with a hash: what the bulk build of a ``_HashTrie`` sorts, and
/// what it leaves in hash order for a diff that pairs two tries by walking them.
@usableFromInline struct _HashedIndex {
    @usableFromInline var hash: UInt64
    @usableFromInline var index: Int

    @inlinable init(hash: UInt64, index: Int) {
        self.hash = hash
        self.index = index
    }
}
