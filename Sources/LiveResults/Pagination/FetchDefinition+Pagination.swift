import Foundation

extension FetchDefinition {
    /// Creates a definition that loads its entities page by page, from a cursor of your own.
    ///
    /// ``FetchedResultsController/performFetch()`` loads the first page; ``FetchedResultsController/loadNextPage()``
    /// and ``FetchedResultsController/loadPreviousPage()`` load one more by the cursors each page gives.
    ///
    /// ```swift
    /// let feed = FetchDefinition<Post>(
    ///     firstPage: FeedCursor.start,
    ///     pageRequest: { cursor in
    ///         let response = try await api.posts(after: cursor)
    ///         return Page(response.posts, next: response.nextCursor)   // next: nil = no more pages
    ///     },
    ///     isIncluded: { $0.isPublished }
    /// )
    /// ```
    ///
    /// - Parameters:
    ///   - firstPage: The cursor of the first page, which every fetch and refetch starts from.
    ///   - pageRequest: Loads the page at a cursor. The order of its entities is their insertion order.
    ///   - isIncluded: Decides whether an entity is shown. Must not call back into the controller.
    ///   - associations: The associations whose values the controller fetches for the entities shown.
    ///   - retry: How often each page request is tried before it fails; once by default.
    @inlinable public init<Cursor: Sendable>(
        firstPage: Cursor,
        pageRequest: @escaping @Sendable (Cursor) async throws -> Page<Entity, Cursor>,
        isIncluded: @escaping @Sendable (Entity) -> Bool = { _ in true },
        associations: [any AssociationProtocol<Entity>] = [],
        retry: RetryPolicy = .none
    ) {
        let pages = _PageSource(firstPage: firstPage, pageRequest: pageRequest)
        self.init(
            request: { try await pages.load(pages.firstCursor).entities },
            isIncluded: isIncluded,
            associations: associations,
            retry: retry)
        self._pages = pages
    }

    /// Creates a paginated definition whose inclusion rule is a Foundation predicate.
    ///
    /// An entity for which the predicate throws is not included.
    @inlinable public init<Cursor: Sendable>(
        firstPage: Cursor,
        pageRequest: @escaping @Sendable (Cursor) async throws -> Page<Entity, Cursor>,
        isIncluded predicate: Predicate<Entity>,
        associations: [any AssociationProtocol<Entity>] = [],
        retry: RetryPolicy = .none
    ) {
        self.init(
            firstPage: firstPage,
            pageRequest: pageRequest,
            isIncluded: { (try? predicate.evaluate($0)) ?? false },
            associations: associations,
            retry: retry)
    }

    /// Pages numbered from `firstPage` on, `pageSize` entities each.
    ///
    /// The pages stop at the first one that returns fewer than `pageSize` entities.
    ///
    /// ```swift
    /// let posts = FetchDefinition<Post>.numberedPages(from: 1, pageSize: 20) { page in
    ///     try await api.posts(page: page)
    /// }
    /// ```
    ///
    /// - Parameters:
    ///   - firstPage: The number of the first page.
    ///   - pageSize: How many entities a full page has; more than 0.
    ///   - isIncluded: Decides whether an entity is shown. Must not call back into the controller.
    ///   - associations: The associations whose values the controller fetches for the entities shown.
    ///   - request: Loads the page with a number.
    @inlinable public static func numberedPages(
        from firstPage: Int,
        pageSize: Int,
        isIncluded: @escaping @Sendable (Entity) -> Bool = { _ in true },
        associations: [any AssociationProtocol<Entity>] = [],
        _ request: @escaping @Sendable (_ page: Int) async throws -> [Entity]
    ) -> FetchDefinition {
        precondition(pageSize > 0, "a page holds at least one entity")
        return FetchDefinition(
            firstPage: firstPage,
            pageRequest: { page in
                let entities = try await request(page)
                // The last number there is ends the pages (a cursor read back from a cache can be any number).
                return Page(entities, next: entities.count < pageSize || page == .max ? nil : page + 1)
            },
            isIncluded: isIncluded,
            associations: associations)
    }

    /// Pages by offset and limit: the first at offset 0, each next one where the last one ended.
    ///
    /// The pages stop at the first one that returns fewer than `limit` entities.
    ///
    /// ```swift
    /// let posts = FetchDefinition<Post>.offsetPages(limit: 50) { offset, limit in
    ///     try await api.posts(offset: offset, limit: limit)
    /// }
    /// ```
    ///
    /// - Parameters:
    ///   - limit: How many entities a full page has; more than 0.
    ///   - isIncluded: Decides whether an entity is shown. Must not call back into the controller.
    ///   - associations: The associations whose values the controller fetches for the entities shown.
    ///   - request: Loads up to `limit` entities from `offset` on.
    @inlinable public static func offsetPages(
        limit: Int,
        isIncluded: @escaping @Sendable (Entity) -> Bool = { _ in true },
        associations: [any AssociationProtocol<Entity>] = [],
        _ request: @escaping @Sendable (_ offset: Int, _ limit: Int) async throws -> [Entity]
    ) -> FetchDefinition {
        precondition(limit > 0, "a page holds at least one entity")
        return FetchDefinition(
            firstPage: 0,
            pageRequest: { offset in
                let entities = try await request(offset, limit)
                let (next, overflow) = offset.addingReportingOverflow(entities.count)
                return Page(entities, next: entities.count < limit || overflow ? nil : next)
            },
            isIncluded: isIncluded,
            associations: associations)
    }

    /// Pages that each start after the key of the last entity of the page before: "older than the last
    /// timestamp" feeds.
    ///
    /// The request receives `nil` for the first page, then the key of the previous page's last entity,
    /// in the page's own order. The pages stop at the first one that returns fewer than `limit` entities.
    ///
    /// ```swift
    /// let posts = FetchDefinition<Post>.keyedPages(by: \.createdAt, limit: 50) { before in
    ///     try await api.posts(olderThan: before, limit: 50)
    /// }
    /// ```
    ///
    /// - Parameters:
    ///   - key: The key that orders the source's pages.
    ///   - limit: How many entities a full page has; more than 0.
    ///   - isIncluded: Decides whether an entity is shown. Must not call back into the controller.
    ///   - associations: The associations whose values the controller fetches for the entities shown.
    ///   - request: Loads up to `limit` entities after a key (`nil`: from the start).
    @inlinable public static func keyedPages<Key: Sendable>(
        by key: KeyPath<Entity, Key> & Sendable,
        limit: Int,
        isIncluded: @escaping @Sendable (Entity) -> Bool = { _ in true },
        associations: [any AssociationProtocol<Entity>] = [],
        _ request: @escaping @Sendable (_ after: Key?) async throws -> [Entity]
    ) -> FetchDefinition {
        precondition(limit > 0, "a page holds at least one entity")
        return FetchDefinition(
            firstPage: Key?.none,
            pageRequest: { after in
                let entities = try await request(after)
                guard entities.count >= limit, let last = entities.last else { return Page(entities, next: nil) }
                return Page(entities, next: .some(last[keyPath: key]))
            },
            isIncluded: isIncluded,
            associations: associations)
    }
}
