import Hummingbird
import HummingbirdWebSocket
import LiveResults
import LiveResultsServing

extension RouterMethods {
    /// Serves live queries of `source` at `path` in PostgREST's dialect: each client asks for its own filter,
    /// order, window, columns and sections; clients that ask the same query share one controller.
    ///
    /// ```swift
    /// router.addLiveQueries(todos, at: "todos",
    ///     filters: ["project", "priority", "title"], orders: ["priority", "title", "id"],
    ///     sections: ["project"], maximumLimit: 500,
    ///     authorize: { request, context in [.equal("owner_id", try context.callerID())] })
    /// // GET /todos?select=id,title&project=eq.home&order=priority.desc&limit=50   PostgREST's answer: the rows
    /// // GET /todos/events?project=eq.home&order=priority.desc&limit=50&sections=project   Server-Sent Events
    /// ```
    ///
    /// The query (see `LiveQueryRequest` for the syntax): `column=OPERATOR.VALUE` filters on the `filters`
    /// columns (`eq`, `neq`, `lt`, `lte`, `gt`, `gte`, `in.(…)`, `is.null`), `order=` by the `orders` columns
    /// (`defaultOrder` when the request names none; the id column ends every order), `limit` (at most
    /// `maximumLimit`, which is also the window of a request without one) and `offset`; `select=` (the
    /// columns of each row, `*` by default; see `SelectList`); `sections=COLUMN`, one of `sections`, to
    /// section the results (one section without it, so that a window is the rows PostgREST answers for the
    /// same URL).
    ///
    /// `GET path?QUERY` answers as PostgREST does: a JSON array of the window's rows in the query's order, with
    /// `Content-Range: FIRST-LAST/*` (`/TOTAL` and PostgREST's `206` with `Prefer: count=exact`); one object
    /// with `Accept: application/vnd.pgrst.object+json` (`406 PGRST116` unless there is exactly one row); the
    /// versioned whole results (a `ResultsUpdate`, with its version as the entity tag) with `Accept:
    /// application/vnd.liveresults+json`. `Accept-Profile` may name `public`. Every error of these routes is
    /// PostgREST's body, `{"code","message","details","hint"}`: `42703` for a column the entity does not have,
    /// `PGRST100` for a parameter that does not parse or is not allowed, `PGRST200` for an embedded resource,
    /// `PGRST127` for what PostgREST serves and this route does not (see `PostgRESTQuery.validate(for:relations:)`).
    ///
    /// Requests that ask the same query after normalising (parameter order, whitespace, `in` lists) share one
    /// controller of a `LiveQueryRegistry`, and the streams of one window share the window. A window's versions
    /// are named by its contents (`LiveWindow.nameVersionsByContents(scope:)`), so a client that reconnects
    /// resumes from its `Last-Event-ID` with one catch-up on any process of the service that has the query
    /// live and went through those contents. A query nobody streams stays live for
    /// `LiveResultsOptions/liveQueryGracePeriod`, so that a client can resume within it, and at most
    /// `LiveResultsOptions/maximumLiveQueries` are live (`503` with `Retry-After` beyond, when all are
    /// streamed). A write reaches only the queries it can change: `eq` and `in` filters on the `filters`
    /// columns are indexed. A query whose results cannot be fetched (the database is out of reach) is
    /// answered `503` with `Retry-After`.
    ///
    /// `authorize` runs for every request: the filters it returns are ANDed into the request's query (row-level
    /// access: `owner_id = the caller`), so callers with different conditions never share a controller; an
    /// error it throws (an `HTTPError(.unauthorized)`, say) is the response.
    ///
    /// - Parameters:
    ///   - source: Fetches each query's results and delivers the events of all of them; `PostgresLiveTable`
    ///     and `GRDBLiveTable` are queryable sources.
    ///   - path: The routes' path; its last component names the table in errors.
    ///   - filters: The columns clients may filter on.
    ///   - orders: The columns clients may order by.
    ///   - defaultOrder: The order of a query that names none; by the id alone by default.
    ///   - sections: The text columns a request may section its results by (`sections=COLUMN`); none by
    ///     default.
    ///   - maximumLimit: The largest window; 500 by default.
    ///   - relations: The tables `select=` may embed (this route's own table, named as its path's last component, among
    ///     them), read when a request asks; none by default. Whole results embed them, and the streams keep the
    ///     embedded rows live (see `LiveEmbedding`).
    ///   - authorize: The conditions a request's queries get, or the error that refuses the request.
    ///   - options: Limits and encoding; see `LiveResultsOptions`.
    /// - Returns: The routes' stream counts.
    /// - Complexity: A request of a live query costs O(1) to find it plus the stream's cost as
    ///   `addLiveResults(_:at:options:)`; the first request of a query fetches it. PostgREST's answer costs
    ///   O(*l* log *n*) for a window of *l* rows. A write costs O(*c* + *a* log *n*) for *c* indexed columns and
    ///   *a* queries it can change, however many are live.
    @discardableResult
    @inlinable public func addLiveQueries<Source: QueryableSource>(
        _ source: Source, at path: RouterPath, filters: [String], orders: [String],
        defaultOrder: [LiveQueryOrdering] = [], sections: [String] = [], maximumLimit: Int = 500,
        relations: LiveRelations = LiveRelations(),
        authorize: (@Sendable (Request, Context) async throws -> [LiveQueryFilter])? = nil,
        options: LiveResultsOptions = LiveResultsOptions()
    ) -> LiveResultsEndpoint where Source.Entity: Codable {
        _serveLiveQueries(
            options._liveQueryRegistry(of: source, indexing: filters), at: path, filters: filters,
            orders: orders, defaultOrder: defaultOrder, sections: sections, maximumLimit: maximumLimit,
            relations: relations, authorize: authorize, options: options)
    }

    /// Serves live queries of `source` at `path`, every request's results sectioned by `sectionedBy`.
    ///
    /// Deprecated: sections are now asked for by each request, `sections=COLUMN`, so that a request without
    /// it gets the rows PostgREST answers. This overload allows `sectionedBy` as the one column requests may
    /// ask for; a request that does not ask gets one section.
    ///
    /// - Parameters: As the other overload; `sectionedBy` is the column `sections=` may name.
    /// - Returns: The routes' stream counts.
    /// - Complexity: As the other overload.
    @available(*, deprecated, message: "requests ask for sections with sections=COLUMN: pass sections: [COLUMN]")
    @discardableResult
    @inlinable public func addLiveQueries<Source: QueryableSource>(
        _ source: Source, at path: RouterPath, filters: [String], orders: [String],
        defaultOrder: [LiveQueryOrdering] = [], sectionedBy: String?, maximumLimit: Int = 500,
        authorize: (@Sendable (Request, Context) async throws -> [LiveQueryFilter])? = nil,
        options: LiveResultsOptions = LiveResultsOptions()
    ) -> LiveResultsEndpoint where Source.Entity: Codable {
        addLiveQueries(
            source, at: path, filters: filters, orders: orders, defaultOrder: defaultOrder,
            sections: sectionedBy.map { [$0] } ?? [], maximumLimit: maximumLimit, authorize: authorize,
            options: options)
    }

    /// The routes of ``addLiveQueries(_:at:filters:orders:defaultOrder:sections:maximumLimit:relations:authorize:options:)``
    /// over `registry`, made by the caller.
    @usableFromInline func _serveLiveQueries<Source: QueryableSource>(
        _ registry: LiveQueryRegistry<Source>, at path: RouterPath, filters: [String], orders: [String],
        defaultOrder: [LiveQueryOrdering], sections: [String], maximumLimit: Int, relations: LiveRelations,
        authorize: (@Sendable (Request, Context) async throws -> [LiveQueryFilter])?, options: LiveResultsOptions
    ) -> LiveResultsEndpoint where Source.Entity: Codable {
        _addLiveQueries(
            registry, at: path, filters: filters, orders: orders, defaultOrder: defaultOrder, sections: sections,
            maximumLimit: maximumLimit, relations: relations, authorize: authorize, options: options
        ).endpoint
    }

    /// The routes every router gets; returns the core's routes, which the WebSocket route shares.
    func _addLiveQueries<Source: QueryableSource>(
        _ registry: LiveQueryRegistry<Source>, at path: RouterPath, filters: [String], orders: [String],
        defaultOrder: [LiveQueryOrdering], sections: [String], maximumLimit: Int, relations: LiveRelations,
        authorize: (@Sendable (Request, Context) async throws -> [LiveQueryFilter])?, options: LiveResultsOptions
    ) -> _LiveRoutes<Source.Entity> where Source.Entity: Codable {
        let route = _LiveQueryRoute(
            path: path.description, filters: filters, orders: orders, defaultOrder: defaultOrder, sections: sections,
            maximumLimit: maximumLimit, relations: relations,
            // An application's error that makes its own response (a 503 of its own) is that response.
            respondsItself: { $0 is any HTTPResponseError })
        let routes = _LiveRoutes(registry: registry, route: route, options: options)
        _addUpdateRoutes(routes, at: path, read: Self._reading(authorize))
        return routes
    }

    /// Reads a request for the core, its conditions those `authorize` returns.
    static func _reading(
        _ authorize: (@Sendable (Request, Context) async throws -> [LiveQueryFilter])?
    ) -> @Sendable (Request, Context) -> LiveResultsRequest {
        { request, context in
            LiveResultsRequest(request) { try await authorize?(request, context) ?? [] }
        }
    }
}

extension RouterMethods where Context: WebSocketRequestContext {
    /// Serves live queries of `source` at `path`, with a WebSocket stream besides PostgREST's answers and the
    /// Server-Sent Events: `GET path/updates?QUERY` (one update per text message; `?since=VERSION` resumes).
    ///
    /// See the other overload for the query, the answers, the sharing and the limits.
    ///
    /// - Parameters: As the other overload.
    /// - Returns: The routes' stream counts (both kinds of stream share `LiveResultsOptions/maximumStreams`).
    /// - Complexity: As the other overload.
    @discardableResult
    @inlinable public func addLiveQueries<Source: QueryableSource>(
        _ source: Source, at path: RouterPath, filters: [String], orders: [String],
        defaultOrder: [LiveQueryOrdering] = [], sections: [String] = [], maximumLimit: Int = 500,
        relations: LiveRelations = LiveRelations(),
        authorize: (@Sendable (Request, Context) async throws -> [LiveQueryFilter])? = nil,
        options: LiveResultsOptions = LiveResultsOptions()
    ) -> LiveResultsEndpoint where Source.Entity: Codable {
        _serveLiveQueriesWithWebSocket(
            options._liveQueryRegistry(of: source, indexing: filters), at: path, filters: filters,
            orders: orders, defaultOrder: defaultOrder, sections: sections, maximumLimit: maximumLimit,
            relations: relations, authorize: authorize, options: options)
    }

    /// The routes of the WebSocket overload of
    /// ``addLiveQueries(_:at:filters:orders:defaultOrder:sections:maximumLimit:relations:authorize:options:)``
    /// over `registry`, made by the caller.
    @usableFromInline func _serveLiveQueriesWithWebSocket<Source: QueryableSource>(
        _ registry: LiveQueryRegistry<Source>, at path: RouterPath, filters: [String], orders: [String],
        defaultOrder: [LiveQueryOrdering], sections: [String], maximumLimit: Int, relations: LiveRelations,
        authorize: (@Sendable (Request, Context) async throws -> [LiveQueryFilter])?, options: LiveResultsOptions
    ) -> LiveResultsEndpoint where Source.Entity: Codable {
        let routes = _addLiveQueries(
            registry, at: path, filters: filters, orders: orders, defaultOrder: defaultOrder, sections: sections,
            maximumLimit: maximumLimit, relations: relations, authorize: authorize, options: options)
        _addWebSocketRoute(routes, at: path, read: Self._reading(authorize))
        return routes.endpoint
    }

    /// Serves live queries of `source` at `path`, with a WebSocket stream, every request's results sectioned
    /// by `sectionedBy` when it asks (`sections=COLUMN`).
    ///
    /// Deprecated as the other overload with `sectionedBy`.
    ///
    /// - Parameters: As the other overload.
    /// - Returns: The routes' stream counts.
    /// - Complexity: As the other overload.
    @available(*, deprecated, message: "requests ask for sections with sections=COLUMN: pass sections: [COLUMN]")
    @discardableResult
    @inlinable public func addLiveQueries<Source: QueryableSource>(
        _ source: Source, at path: RouterPath, filters: [String], orders: [String],
        defaultOrder: [LiveQueryOrdering] = [], sectionedBy: String?, maximumLimit: Int = 500,
        authorize: (@Sendable (Request, Context) async throws -> [LiveQueryFilter])? = nil,
        options: LiveResultsOptions = LiveResultsOptions()
    ) -> LiveResultsEndpoint where Source.Entity: Codable {
        addLiveQueries(
            source, at: path, filters: filters, orders: orders, defaultOrder: defaultOrder,
            sections: sectionedBy.map { [$0] } ?? [], maximumLimit: maximumLimit, authorize: authorize,
            options: options)
    }
}
