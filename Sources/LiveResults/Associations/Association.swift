/// A value related to each entity, fetched in batches for the entities being shown: the author of a
/// post, the customer of an order.
///
/// An association names the key of the related value in the entity, and a batch request that turns
/// keys into values. ``FetchedResultsController/associatedValue(_:for:)``
/// returns the cached value, or `nil` and starts one request for the keys of the entities around the
/// one asked for; when the values arrive, a change set reports those entities as updated.
///
/// ```swift
/// let authors = Association<Post, Author>(key: \.authorID) { authorIDs in
///     try await store.authors(ids: authorIDs)     // [Author.ID] -> [Author.ID: Author]
/// }
/// let editors = Association<Post, Author>(key: \.editorID) { ids in   // editorID: Author.ID?
///     try await store.authors(ids: ids)
/// }
/// let tags = Association<Post, [Tag]>(keys: \.tagIDs) { tagIDs in   // tagIDs: [Tag.ID]
///     try await store.tags(ids: tagIDs)           // [Tag.ID] -> [Tag.ID: Tag]
/// }
/// ```
///
/// A key the request leaves out of its result has no value (`nil`, or no element in the array form),
/// and that is cached too: it is not requested again. Each association is one cache, shared by the
/// entities that have the same keys, so a key is requested once however many entities use it.
///
/// An association is a reference: the controller caches its values under its identity. Make each one
/// once, and reuse it.
///
/// The controller reads an entity's keys while it holds its lock: a key path to a computed property must
/// not call back into the controller. The request runs in a task of its own, outside the lock.
public final class Association<Entity: FetchableEntity, Value: Sendable>: AssociationProtocol {
    /// The association with its key and value types erased. Not API.
    public let _erased: _AnyAssociation<Entity>
    /// Makes an entity's value from the cached results of its keys, in its key order (`nil` for a key
    /// without result).
    @usableFromInline let assemble: @Sendable ([(any Sendable)?]) -> Value?

    @inlinable init(_ erased: _AnyAssociation<Entity>, assemble: @escaping @Sendable ([(any Sendable)?]) -> Value?) {
        self._erased = erased
        self.assemble = assemble
    }

    /// Creates an association whose key is a property of the entity.
    ///
    /// - Parameters:
    ///   - key: The key of the entity's related value.
    ///   - backoff: How long requests pause after one fails.
    ///   - request: Fetches the values of a batch of distinct keys. A key it leaves out has no value.
    @inlinable public convenience init<Key: Hashable & Sendable>(
        key: KeyPath<Entity, Key> & Sendable,
        backoff: AssociationBackoff = .default,
        request: @escaping @Sendable ([Key]) async throws -> [Key: Value]
    ) {
        self.init(
            _AnyAssociation(
                keys: { [_AssociationKey($0[keyPath: key])] }, request: _AnyAssociation<Entity>.erase(request),
                backoff: backoff),
            assemble: { $0.first.flatMap { $0 as? Value } }
        )
    }

    /// Creates an association whose key is an optional property of the entity: an entity whose key is
    /// `nil` has no value, and is never requested.
    ///
    /// - Parameters:
    ///   - key: The key of the entity's related value, if it has one.
    ///   - backoff: How long requests pause after one fails.
    ///   - request: Fetches the values of a batch of distinct keys. A key it leaves out has no value.
    @inlinable public convenience init<Key: Hashable & Sendable>(
        key: KeyPath<Entity, Key?> & Sendable,
        backoff: AssociationBackoff = .default,
        request: @escaping @Sendable ([Key]) async throws -> [Key: Value]
    ) {
        self.init(
            _AnyAssociation(
                keys: { entity in entity[keyPath: key].map { [_AssociationKey($0)] } ?? [] },
                request: _AnyAssociation<Entity>.erase(request), backoff: backoff),
            assemble: { $0.first.flatMap { $0 as? Value } }
        )
    }

    /// Creates an association whose value is an array of elements, one per key in an array property of
    /// the entity: each entity gets the elements of its keys in its own key order, without the keys
    /// that have no element.
    ///
    /// ```swift
    /// let tags = Association<Post, [Tag]>(keys: \.tagIDs) { ids in try await store.tags(ids: ids) }
    /// ```
    ///
    /// - Parameters:
    ///   - keys: The keys of the entity's related elements.
    ///   - backoff: How long requests pause after one fails.
    ///   - request: Fetches the elements of a batch of distinct keys. A key it leaves out has no element.
    @inlinable public convenience init<Key: Hashable & Sendable, Element: Sendable>(
        keys: KeyPath<Entity, [Key]> & Sendable,
        backoff: AssociationBackoff = .default,
        request: @escaping @Sendable ([Key]) async throws -> [Key: Element]
    ) where Value == [Element] {
        self.init(
            _AnyAssociation(
                keys: { $0[keyPath: keys].map { _AssociationKey($0) } },
                request: _AnyAssociation<Entity>.erase(request),
                backoff: backoff),
            assemble: { parts in parts.compactMap { $0 as? Element } }
        )
    }
}
