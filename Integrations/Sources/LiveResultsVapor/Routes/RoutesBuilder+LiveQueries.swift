import LiveResults
import LiveResultsServing
import Vapor

extension RoutesBuilder {
    /// Serves live queries of `source` at `path` in PostgREST's dialect: each client asks for its own filter,
    /// order, window, columns and sections; clients that ask the same query share one controller.
    ///
    /// ```swift
    /// let endpoint = app.liveQueries(todos, at: "todos",
    ///     filters: ["project", "priority", "title"], orders: ["priority", "title", "id"],
    ///     sections: ["project"], maximumLimit: 500,
    ///     authorize: { request in [.equal("owner_id", try request.auth.require(User.self).id)] })
    /// app.lifecycle.use(endpoint)
    /// // GET /todos?select=id,title&project=eq.home&order=priority.desc&limit=50   PostgREST's answer: the rows
    /// // GET /todos/events?project=eq.home&order=priority.desc&limit=50            Server-Sent Events
    /// // GET /todos/updates?project=eq.home&since=VERSION                         WebSocket
    /// ```
    ///
    /// The query, the answers, the sharing, the limits and the refusals are those of `LiveResultsHummingbird`'s
    /// `addLiveQueries(_:at:filters:orders:defaultOrder:sections:maximumLimit:relations:authorize:options:)`,
    /// the same serving core answering both: see the article *PostgREST compatibility*.
    ///
    /// `authorize` runs for every request: the filters it returns are ANDed into the request's query (row-level
    /// access), so callers with different conditions never share a controller; an error it throws (an
    /// `Abort(.unauthorized)`, say) is the response, as Vapor writes it.
    ///
    /// - Parameters:
    ///   - source: Fetches each query's results and delivers the events of all of them; `PostgresLiveTable`
    ///     and `GRDBLiveTable` are queryable sources.
    ///   - path: The routes' path; its last component names the table in errors.
    ///   - filters: The columns clients may filter on.
    ///   - orders: The columns clients may order by.
    ///   - defaultOrder: The order of a query that names none; by the id alone by default.
    ///   - sections: The text columns a request may section its results by (`sections=COLUMN`); none by default.
    ///   - maximumLimit: The largest window; 500 by default.
    ///   - relations: The tables `select=` may embed; none by default. Whole results embed them, and the
    ///     streams keep the embedded rows live (see `LiveEmbedding`).
    ///   - authorize: The conditions a request's queries get, or the error that refuses the request.
    ///   - options: Limits and encoding; see `LiveResultsOptions`.
    /// - Returns: The routes' stream counts; register it with `app.lifecycle.use(_:)`.
    /// - Complexity: A request of a live query costs O(1) to find it plus the stream's cost as
    ///   `liveResults(_:at:options:)`; the first request of a query fetches it. A write costs
    ///   O(*c* + *a* log *n*) for *c* indexed columns and *a* queries it can change, however many are live.
    @discardableResult
    @inlinable public func liveQueries<Source: QueryableSource>(
        _ source: Source, at path: PathComponent..., filters: [String], orders: [String],
        defaultOrder: [LiveQueryOrdering] = [], sections: [String] = [], maximumLimit: Int = 500,
        relations: LiveRelations = LiveRelations(),
        authorize: (@Sendable (Request) async throws -> [LiveQueryFilter])? = nil,
        options: LiveResultsOptions = LiveResultsOptions()
    ) -> LiveResultsEndpoint where Source.Entity: Codable {
        _serveLiveQueries(
            options._liveQueryRegistry(of: source, indexing: filters), at: path, filters: filters, orders: orders,
            defaultOrder: defaultOrder, sections: sections, maximumLimit: maximumLimit, relations: relations,
            authorize: authorize, options: options)
    }

    /// Serves live queries of `source` at `path`, every request's results sectioned by `sectionedBy` when it asks
    /// (`sections=COLUMN`).
    ///
    /// Deprecated as `LiveResultsHummingbird`'s overload with `sectionedBy`, which it mirrors.
    ///
    /// - Parameters: As the other overload; `sectionedBy` is the column `sections=` may name.
    /// - Returns: The routes' stream counts.
    /// - Complexity: As the other overload.
    @available(*, deprecated, message: "requests ask for sections with sections=COLUMN: pass sections: [COLUMN]")
    @discardableResult
    @inlinable public func liveQueries<Source: QueryableSource>(
        _ source: Source, at path: PathComponent..., filters: [String], orders: [String],
        defaultOrder: [LiveQueryOrdering] = [], sectionedBy: String?, maximumLimit: Int = 500,
        authorize: (@Sendable (Request) async throws -> [LiveQueryFilter])? = nil,
        options: LiveResultsOptions = LiveResultsOptions()
    ) -> LiveResultsEndpoint where Source.Entity: Codable {
        _serveLiveQueries(
            options._liveQueryRegistry(of: source, indexing: filters), at: path, filters: filters, orders: orders,
            defaultOrder: defaultOrder, sections: sectionedBy.map { [$0] } ?? [], maximumLimit: maximumLimit,
            relations: LiveRelations(), authorize: authorize, options: options)
    }

    /// The routes of ``liveQueries(_:at:filters:orders:defaultOrder:sections:maximumLimit:relations:authorize:options:)``
    /// over `registry`, made by the caller.
    @usableFromInline func _serveLiveQueries<Source: QueryableSource>(
        _ registry: LiveQueryRegistry<Source>, at path: [PathComponent], filters: [String], orders: [String],
        defaultOrder: [LiveQueryOrdering], sections: [String], maximumLimit: Int, relations: LiveRelations,
        authorize: (@Sendable (Request) async throws -> [LiveQueryFilter])?, options: LiveResultsOptions
    ) -> LiveResultsEndpoint where Source.Entity: Codable {
        let route = _LiveQueryRoute(
            path: path.map(\.description).joined(separator: "/"), filters: filters, orders: orders,
            defaultOrder: defaultOrder, sections: sections, maximumLimit: maximumLimit, relations: relations,
            // An application's error that makes its own response (an `Abort` of its own) is that response.
            respondsItself: { $0 is any AbortError })
        let routes = _LiveRoutes(registry: registry, route: route, options: options)
        _addLiveRoutes(routes, at: path, heartbeat: options.heartbeatInterval) { request in
            LiveResultsRequest(request) { try await authorize?(request) ?? [] }
        }
        return routes.endpoint
    }
}
