/// A value that a ``_HashTrie`` files under a key the value carries itself, so that the trie keeps
/// no second copy of the key beside it.
@usableFromInline protocol _HashTrieValue: Sendable {
    associatedtype TrieKey: Hashable & Sendable

    /// The key of the value: two values with equal keys replace each other in a trie.
    var trieKey: TrieKey { get }
}

extension _StoredEntity: _HashTrieValue {
    @inlinable var trieKey: Entity.ID { entity.id }
}
