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
/// A *live* association follows the related values' own ``EventSource``, so that its cache stays current
/// without requesting anything again:
///
/// ```swift
/// let authors = Association<Post, Author>(key: \.authorID, following: authorEvents) { ids in
///     try await store.authors(ids: ids)
/// }
/// ```
///
/// An `inserted` or `updated` author replaces the cached value of its id, `deleted` makes it no value, and
/// `invalidated` drops the cache (the next read requests again). In each controller using the association,
/// the entities that were served a changed value are reported updated, in one change set per batch of
/// related events; a key no entity was served is left alone, and nothing is requested for what an event
/// carried. An event that arrives while its key is being requested wins over the request's result. The
/// association subscribes when it is made, and stays subscribed for as long as it exists; memory pressure
/// drops its values, not its subscription. An event the related source cannot decode invalidates the
/// cache, as a change may have been missed.
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
        self.init(key: key, follower: nil, backoff: backoff, request: request)
    }

    /// Creates a live association whose key is a property of the entity: the id of a related entity whose
    /// events `related` delivers, so that the cached values stay current (see ``Association``).
    ///
    /// ```swift
    /// let assignees = Association<Todo, Person>(key: \.assigneeID, following: people) { ids in
    ///     try await store.people(ids: ids)     // [Person.ID] -> [Person.ID: Person]
    /// }
    /// ```
    ///
    /// - Parameters:
    ///   - key: The id of the entity's related value.
    ///   - related: The events of the related values; the association subscribes to it at once.
    ///   - backoff: How long requests pause after one fails.
    ///   - request: Fetches the values of a batch of distinct ids. An id it leaves out has no value.
    /// - Complexity: A batch of *k* related events costs O(*k*) once, plus, in each controller using the
    ///   association, O(*k* + *a* log *n*) for the *a* entities served one of its values.
    @inlinable public convenience init(
        key: KeyPath<Entity, Value.ID> & Sendable,
        following related: some EventSource<Value>,
        backoff: AssociationBackoff = .default,
        request: @escaping @Sendable ([Value.ID]) async throws -> [Value.ID: Value]
    ) where Value: FetchableEntity {
        self.init(key: key, follower: _AssociationFollower(following: related), backoff: backoff, request: request)
    }

    @inlinable convenience init<Key: Hashable & Sendable>(
        key: KeyPath<Entity, Key> & Sendable, follower: _AssociationFollower?, backoff: AssociationBackoff,
        request: @escaping @Sendable ([Key]) async throws -> [Key: Value]
    ) {
        self.init(
            singleKey: { [_AssociationKey($0[keyPath: key])] }, follower: follower, backoff: backoff, request: request)
    }

    /// The association of one value per entity, from its one key (none when `keys` finds none).
    @inlinable convenience init<Key: Hashable & Sendable>(
        singleKey keys: @escaping @Sendable (Entity) -> [_AssociationKey], follower: _AssociationFollower?,
        backoff: AssociationBackoff, request: @escaping @Sendable ([Key]) async throws -> [Key: Value]
    ) {
        self.init(
            _AnyAssociation(
                keys: keys, request: _AnyAssociation<Entity>.erase(request), backoff: backoff, follower: follower),
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
        self.init(key: key, follower: nil, backoff: backoff, request: request)
    }

    /// Creates a live association whose key is an optional property of the entity: the id of a related
    /// entity whose events `related` delivers (see ``Association``). An entity whose key is `nil` has no
    /// value, and is never requested.
    ///
    /// - Parameters:
    ///   - key: The id of the entity's related value, if it has one.
    ///   - related: The events of the related values; the association subscribes to it at once.
    ///   - backoff: How long requests pause after one fails.
    ///   - request: Fetches the values of a batch of distinct ids. An id it leaves out has no value.
    /// - Complexity: As the live association with a key that is not optional.
    @inlinable public convenience init(
        key: KeyPath<Entity, Value.ID?> & Sendable,
        following related: some EventSource<Value>,
        backoff: AssociationBackoff = .default,
        request: @escaping @Sendable ([Value.ID]) async throws -> [Value.ID: Value]
    ) where Value: FetchableEntity {
        self.init(key: key, follower: _AssociationFollower(following: related), backoff: backoff, request: request)
    }

    @inlinable convenience init<Key: Hashable & Sendable>(
        key: KeyPath<Entity, Key?> & Sendable, follower: _AssociationFollower?, backoff: AssociationBackoff,
        request: @escaping @Sendable ([Key]) async throws -> [Key: Value]
    ) {
        self.init(
            singleKey: { entity in entity[keyPath: key].map { [_AssociationKey($0)] } ?? [] }, follower: follower,
            backoff: backoff, request: request)
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
        self.init(keys: keys, follower: nil, backoff: backoff, request: request)
    }

    /// Creates a live association whose value is an array of related entities, one per id in an array
    /// property of the entity, whose events `related` delivers (see ``Association``): a deleted element
    /// leaves the arrays that showed it.
    ///
    /// ```swift
    /// let tags = Association<Post, [Tag]>(keys: \.tagIDs, following: tagEvents) { ids in
    ///     try await store.tags(ids: ids)
    /// }
    /// ```
    ///
    /// - Parameters:
    ///   - keys: The ids of the entity's related elements.
    ///   - related: The events of the related elements; the association subscribes to it at once.
    ///   - backoff: How long requests pause after one fails.
    ///   - request: Fetches the elements of a batch of distinct ids. An id it leaves out has no element.
    /// - Complexity: As the live association with one key, for the entities served one of the changed keys.
    @inlinable public convenience init<Element: FetchableEntity>(
        keys: KeyPath<Entity, [Element.ID]> & Sendable,
        following related: some EventSource<Element>,
        backoff: AssociationBackoff = .default,
        request: @escaping @Sendable ([Element.ID]) async throws -> [Element.ID: Element]
    ) where Value == [Element] {
        self.init(keys: keys, follower: _AssociationFollower(following: related), backoff: backoff, request: request)
    }

    @inlinable convenience init<Key: Hashable & Sendable, Element: Sendable>(
        keys: KeyPath<Entity, [Key]> & Sendable, follower: _AssociationFollower?, backoff: AssociationBackoff,
        request: @escaping @Sendable ([Key]) async throws -> [Key: Element]
    ) where Value == [Element] {
        self.init(
            _AnyAssociation(
                keys: { $0[keyPath: keys].map { _AssociationKey($0) } },
                request: _AnyAssociation<Entity>.erase(request), backoff: backoff, follower: follower),
            assemble: { parts in parts.compactMap { $0 as? Element } }
        )
    }
}
