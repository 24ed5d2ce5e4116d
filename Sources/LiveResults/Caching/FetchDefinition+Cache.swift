import Foundation

extension FetchDefinition where Entity: Codable {
    /// Creates a definition whose results persist between launches, as `cache` says.
    ///
    /// ```swift
    /// let definition = FetchDefinition<Post>(
    ///     request: { try await api.posts() },
    ///     cache: ResultsCachePolicy(key: "posts", store: FileResultsStore(directory: cacheFolder),
    ///                               expiry: .after(.seconds(600)), usage: .thenFetch),
    ///     retry: RetryPolicy(maxAttempts: 3)
    /// )
    /// ```
    ///
    /// - Parameters:
    ///   - request: Fetches every entity; the order of its result is the insertion order that breaks
    ///     ties between entities the sort descriptors consider equal.
    ///   - isIncluded: Decides whether an entity is shown. Must not call back into the controller.
    ///   - associations: The associations whose values the controller fetches for the entities shown.
    ///   - cache: Where the results are saved, and how a fetch uses them (see ``ResultsCachePolicy``).
    ///   - retry: How often the request is tried before it fails; once by default.
    @inlinable public init(
        request: @escaping Request,
        isIncluded: @escaping @Sendable (Entity) -> Bool = { _ in true },
        associations: [any AssociationProtocol<Entity>] = [],
        cache: ResultsCachePolicy,
        retry: RetryPolicy = .none
    ) {
        self.init(request: request, isIncluded: isIncluded, associations: associations, retry: retry)
        self._cache = _ResultsCache(cache)
    }

    /// Creates a definition whose inclusion rule is a Foundation predicate and whose results persist
    /// between launches, as `cache` says.
    @inlinable public init(
        request: @escaping Request,
        isIncluded predicate: Predicate<Entity>,
        associations: [any AssociationProtocol<Entity>] = [],
        cache: ResultsCachePolicy,
        retry: RetryPolicy = .none
    ) {
        self.init(request: request, isIncluded: predicate, associations: associations, retry: retry)
        self._cache = _ResultsCache(cache)
    }

    /// Creates a paginated definition whose loaded pages and cursors persist between launches, as
    /// `cache` says.
    ///
    /// A fetch that uses the saved results shows every page they held and continues from their
    /// cursors; a refetch reloads as many pages.
    ///
    /// - Parameters:
    ///   - firstPage: The cursor of the first page, which every fetch and refetch starts from.
    ///   - pageRequest: Loads the page at a cursor. The order of its entities is their insertion order.
    ///   - isIncluded: Decides whether an entity is shown. Must not call back into the controller.
    ///   - associations: The associations whose values the controller fetches for the entities shown.
    ///   - cache: Where the pages are saved, and how a fetch uses them (see ``ResultsCachePolicy``).
    ///   - retry: How often each page request is tried before it fails; once by default.
    @inlinable public init<Cursor: Codable & Sendable>(
        firstPage: Cursor,
        pageRequest: @escaping @Sendable (Cursor) async throws -> Page<Entity, Cursor>,
        isIncluded: @escaping @Sendable (Entity) -> Bool = { _ in true },
        associations: [any AssociationProtocol<Entity>] = [],
        cache: ResultsCachePolicy,
        retry: RetryPolicy = .none
    ) {
        self.init(
            firstPage: firstPage, pageRequest: pageRequest, isIncluded: isIncluded, associations: associations,
            retry: retry)
        self._cache = _ResultsCache(cache, cursor: Cursor.self)
    }

    /// Numbered pages (see ``numberedPages(from:pageSize:isIncluded:associations:_:)``) whose loaded
    /// pages persist between launches, as `cache` says.
    @inlinable public static func numberedPages(
        from firstPage: Int,
        pageSize: Int,
        isIncluded: @escaping @Sendable (Entity) -> Bool = { _ in true },
        associations: [any AssociationProtocol<Entity>] = [],
        cache: ResultsCachePolicy,
        _ request: @escaping @Sendable (_ page: Int) async throws -> [Entity]
    ) -> FetchDefinition {
        numberedPages(from: firstPage, pageSize: pageSize, isIncluded: isIncluded, associations: associations, request)
            .caching(cache, cursor: Int.self)
    }

    /// Pages by offset and limit (see ``offsetPages(limit:isIncluded:associations:_:)``) whose loaded
    /// pages persist between launches, as `cache` says.
    @inlinable public static func offsetPages(
        limit: Int,
        isIncluded: @escaping @Sendable (Entity) -> Bool = { _ in true },
        associations: [any AssociationProtocol<Entity>] = [],
        cache: ResultsCachePolicy,
        _ request: @escaping @Sendable (_ offset: Int, _ limit: Int) async throws -> [Entity]
    ) -> FetchDefinition {
        offsetPages(limit: limit, isIncluded: isIncluded, associations: associations, request)
            .caching(cache, cursor: Int.self)
    }

    /// Keyed pages (see ``keyedPages(by:limit:isIncluded:associations:_:)``) whose loaded pages persist
    /// between launches, as `cache` says.
    @inlinable public static func keyedPages<Key: Codable & Sendable>(
        by key: KeyPath<Entity, Key> & Sendable,
        limit: Int,
        isIncluded: @escaping @Sendable (Entity) -> Bool = { _ in true },
        associations: [any AssociationProtocol<Entity>] = [],
        cache: ResultsCachePolicy,
        _ request: @escaping @Sendable (_ after: Key?) async throws -> [Entity]
    ) -> FetchDefinition {
        keyedPages(by: key, limit: limit, isIncluded: isIncluded, associations: associations, request)
            .caching(cache, cursor: Key?.self)
    }

    /// This definition, with its results persisted as `policy` says, its cursors being `Cursor`s.
    @inlinable func caching<Cursor: Codable & Sendable>(_ policy: ResultsCachePolicy, cursor: Cursor.Type)
        -> FetchDefinition
    {
        var definition = self
        definition._cache = _ResultsCache(policy, cursor: cursor)
        return definition
    }
}
