import LiveResults

extension FetchDefinition {
    /// A definition whose fetch sends `request` and reads the entities from its response.
    ///
    /// ```swift
    /// let definition = FetchDefinition<Todo>(client: client, request: ListTodos(), retry: RetryPolicy(maxAttempts: 3)) {
    ///     $0.todos                                  // @ResponseBody<[Todo]> var todos
    /// }
    /// ```
    ///
    /// A status that is not 2xx or 3xx fails the fetch with ``HTTPAPIError/unacceptableStatus(_:body:)``,
    /// and so does a response from which `entities` reads `nil`; the `retry` policy applies to every
    /// failure, a timeout or a refused connection included.
    ///
    /// - Parameters:
    ///   - client: The client that sends the request.
    ///   - request: The request; sent again for every refetch.
    ///   - isIncluded: The inclusion rule, for fetches and live events.
    ///   - retry: The retry policy of each fetch.
    ///   - entities: The entities in the response (usually its ``ResponseBody``).
    /// - Complexity: The exchange, plus O(*b*) to decode *b* bytes.
    public init<Request: APIRequest>(
        client: HTTPAPIClient, request: Request, isIncluded: @escaping @Sendable (Entity) -> Bool = { _ in true },
        retry: RetryPolicy = .none, entities: @escaping @Sendable (Request.Response) throws -> [Entity]?
    ) {
        self.init(
            request: { try await client.entities(request, entities) }, isIncluded: isIncluded, retry: retry)
    }

    /// Numbered pages (`?page=1`, `2`, …) read from `request(page)`; the pages stop at one with fewer than
    /// `pageSize` entities.
    ///
    /// ```swift
    /// let definition = FetchDefinition<Todo>.numberedPages(client: client, pageSize: 20) { page in
    ///     ListTodos(page: page)
    /// } entities: { $0.todos }
    /// ```
    ///
    /// - Parameters:
    ///   - client: The client that sends the requests.
    ///   - firstPage: The first page's number (1 by default).
    ///   - pageSize: The entities of a full page.
    ///   - isIncluded: The inclusion rule.
    ///   - retry: The retry policy of each page.
    ///   - request: The request of a page number.
    ///   - entities: The entities in a response.
    /// - Complexity: As `FetchedResultsController.loadNextPage()`, plus one exchange per page.
    public static func numberedPages<Request: APIRequest>(
        client: HTTPAPIClient, from firstPage: Int = 1, pageSize: Int,
        isIncluded: @escaping @Sendable (Entity) -> Bool = { _ in true }, retry: RetryPolicy = .none,
        request: @escaping @Sendable (_ page: Int) -> Request,
        entities: @escaping @Sendable (Request.Response) throws -> [Entity]?
    ) -> FetchDefinition {
        precondition(pageSize > 0, "a page holds at least one entity")
        return FetchDefinition(
            firstPage: firstPage,
            pageRequest: { page in
                let found = try await client.entities(request(page), entities)
                return Page(found, next: found.count < pageSize ? nil : page + 1)
            }, isIncluded: isIncluded, retry: retry)
    }

    /// Offset pages (`?offset=0&limit=50`, `?offset=50&limit=50`, …); the pages stop at one with fewer
    /// than `limit` entities.
    ///
    /// - Parameters:
    ///   - client: The client that sends the requests.
    ///   - limit: The entities of a full page.
    ///   - isIncluded: The inclusion rule.
    ///   - retry: The retry policy of each page.
    ///   - request: The request of an offset and a limit.
    ///   - entities: The entities in a response.
    /// - Complexity: As `FetchedResultsController.loadNextPage()`, plus one exchange per page.
    public static func offsetPages<Request: APIRequest>(
        client: HTTPAPIClient, limit: Int, isIncluded: @escaping @Sendable (Entity) -> Bool = { _ in true },
        retry: RetryPolicy = .none, request: @escaping @Sendable (_ offset: Int, _ limit: Int) -> Request,
        entities: @escaping @Sendable (Request.Response) throws -> [Entity]?
    ) -> FetchDefinition {
        precondition(limit > 0, "a page holds at least one entity")
        return FetchDefinition(
            firstPage: 0,
            pageRequest: { offset in
                let found = try await client.entities(request(offset, limit), entities)
                return Page(found, next: found.count < limit ? nil : offset + found.count)
            }, isIncluded: isIncluded, retry: retry)
    }

    /// Keyed pages (`?after=42`): each page after the first asks for the entities after the key of the
    /// previous page's last entity; the pages stop at one with fewer than `limit` entities.
    ///
    /// - Parameters:
    ///   - client: The client that sends the requests.
    ///   - key: The key of an entity (`\.id`, `\.createdAt`).
    ///   - limit: The entities of a full page.
    ///   - isIncluded: The inclusion rule.
    ///   - retry: The retry policy of each page.
    ///   - request: The request of the entities after a key (`nil` for the first page).
    ///   - entities: The entities in a response.
    /// - Complexity: As `FetchedResultsController.loadNextPage()`, plus one exchange per page.
    public static func keyedPages<Request: APIRequest, Key: Sendable>(
        client: HTTPAPIClient, by key: KeyPath<Entity, Key> & Sendable, limit: Int,
        isIncluded: @escaping @Sendable (Entity) -> Bool = { _ in true }, retry: RetryPolicy = .none,
        request: @escaping @Sendable (_ after: Key?) -> Request,
        entities: @escaping @Sendable (Request.Response) throws -> [Entity]?
    ) -> FetchDefinition {
        precondition(limit > 0, "a page holds at least one entity")
        return FetchDefinition(
            firstPage: Key?.none,
            pageRequest: { after in
                let found = try await client.entities(request(after), entities)
                guard found.count >= limit, let last = found.last else { return Page(found, next: nil) }
                return Page(found, next: .some(last[keyPath: key]))
            }, isIncluded: isIncluded, retry: retry)
    }

    /// Pages whose response says where the next one starts: a cursor in the body, in a header such as
    /// `Link` (``LinkHeader``), or in a ``NestedResponse``; a page whose cursor is `nil` is the last.
    ///
    /// ```swift
    /// let definition = FetchDefinition<Todo>.cursorPages(client: client) { (cursor: String?) in
    ///     ListTodos(after: cursor)
    /// } page: { response in
    ///     (response.todos, response.link?.queryValue("after"))    // @ResponseHeader<LinkHeaderStrategy> var link: LinkHeader?
    /// }
    /// ```
    ///
    /// - Parameters:
    ///   - client: The client that sends the requests.
    ///   - isIncluded: The inclusion rule.
    ///   - retry: The retry policy of each page.
    ///   - request: The request of a cursor (`nil` for the first page).
    ///   - page: The entities in a response, and the next page's cursor.
    /// - Complexity: As `FetchedResultsController.loadNextPage()`, plus one exchange per page.
    public static func cursorPages<Request: APIRequest, Cursor: Sendable>(
        client: HTTPAPIClient, isIncluded: @escaping @Sendable (Entity) -> Bool = { _ in true },
        retry: RetryPolicy = .none, request: @escaping @Sendable (_ cursor: Cursor?) -> Request,
        page: @escaping @Sendable (Request.Response) throws -> (entities: [Entity]?, next: Cursor?)
    ) -> FetchDefinition {
        FetchDefinition(
            firstPage: Cursor?.none,
            pageRequest: { cursor in
                var next: Cursor?
                let found = try await client.entities(request(cursor)) { response in
                    let read = try page(response)
                    next = read.next
                    return read.entities
                }
                return Page(found, next: next.map { .some($0) })
            }, isIncluded: isIncluded, retry: retry)
    }
}

extension HTTPAPIClient {
    /// Sends `request`, requiring a 2xx or 3xx status, and reads the entities from its response.
    ///
    /// - Throws: ``HTTPAPIError/unacceptableStatus(_:body:)`` for another status,
    ///   ``HTTPAPIError/noEntities(_:)`` when `read` finds none; any other error of
    ///   ``send(_:requiringSuccess:)``.
    public func entities<Request: APIRequest, Entity>(
        _ request: Request, _ read: (Request.Response) throws -> [Entity]?
    ) async throws -> [Entity] {
        let response = try await send(request, requiringSuccess: true)
        guard let entities = try read(response) else {
            throw HTTPAPIError.noEntities(String(describing: Request.Response.self))
        }
        return entities
    }
}

extension ResultsUpdate {
    /// The entities of a whole-results update, section after section (what `GET /todos` of
    /// `LiveResultsHummingbird` answers); `nil` for a change set.
    ///
    /// - Complexity: O(*n*).
    public var wholeResults: [Entity]? {
        guard case .results(let sections) = content else { return nil }
        return sections.flatMap(\.entities)
    }
}
