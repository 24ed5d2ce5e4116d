import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdWebSocket
import LiveResults

extension RouterMethods {
    /// Serves live queries of `source` at `path`: each client asks, in PostgREST's syntax, for its own filter,
    /// order and window; clients that ask the same query share one controller.
    ///
    /// ```swift
    /// router.addLiveQueries(todos, at: "todos",
    ///     filters: ["project", "priority", "title"], orders: ["priority", "title", "id"],
    ///     sectionedBy: "project", maximumLimit: 500,
    ///     authorize: { request, context in [.equal("owner_id", try context.callerID())] })
    /// // GET /todos?project=eq.home&order=priority.desc&limit=50          the window's whole results
    /// // GET /todos/events?project=eq.home&order=priority.desc&limit=50   Server-Sent Events of the window
    /// ```
    ///
    /// The query (see `LiveQueryRequest` for the syntax): `column=OPERATOR.VALUE` filters on the `filters`
    /// columns (`eq`, `neq`, `lt`, `lte`, `gt`, `gte`, `in.(…)`, `is.null`), `order=` by the `orders` columns
    /// (`defaultOrder` when the request names none; the id column ends every order), `limit` (at most
    /// `maximumLimit`, which is also the window of a request without one) and `offset`. A column not
    /// allowed, an unknown operator, a value that is not of the column's kind or a limit out of range is
    /// answered `400` with a JSON error whose message starts with the parameter's name.
    ///
    /// Requests that ask the same query after normalising (parameter order, whitespace, `in` lists) share one
    /// controller of a `LiveQueryRegistry`, and the streams of one window share the window. A window's versions
    /// are named by its contents (`LiveWindow.nameVersionsByContents(scope:)`), so a client that reconnects
    /// resumes from its `Last-Event-ID` with one catch-up on any process of the service that has the query
    /// live and went through those contents. A query nobody streams stays live for
    /// ``LiveResultsOptions/liveQueryGracePeriod``, so that a client can resume within it, and at most
    /// ``LiveResultsOptions/maximumLiveQueries`` are live (`503` with `Retry-After` beyond, when all are
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
    ///   - path: The routes' path.
    ///   - filters: The columns clients may filter on.
    ///   - orders: The columns clients may order by.
    ///   - defaultOrder: The order of a query that names none; by the id alone by default.
    ///   - sectionedBy: A text column that sections every query's results; one section by default.
    ///   - maximumLimit: The largest window; 500 by default.
    ///   - authorize: The conditions a request's queries get, or the error that refuses the request.
    ///   - options: Limits and encoding; see ``LiveResultsOptions``.
    /// - Returns: The routes' stream counts.
    /// - Complexity: A request of a live query costs O(1) to find it plus the stream's cost as
    ///   `addLiveResults(_:at:options:)`; the first request of a query fetches it. A write costs
    ///   O(*c* + *a* log *n*) for *c* indexed columns and *a* queries it can change, however many are live.
    @discardableResult
    public func addLiveQueries<Source: QueryableSource>(
        _ source: Source, at path: RouterPath, filters: [String], orders: [String],
        defaultOrder: [LiveQueryOrdering] = [], sectionedBy: String? = nil, maximumLimit: Int = 500,
        authorize: (@Sendable (Request, Context) async throws -> [LiveQueryFilter])? = nil,
        options: LiveResultsOptions = LiveResultsOptions()
    ) -> LiveResultsEndpoint where Source.Entity: Codable {
        _addLiveQueries(
            source, at: path,
            rules: LiveQueryRules(
                filters: Set(filters), orders: Set(orders), sectionedBy: sectionedBy, defaultOrder: defaultOrder,
                maximumLimit: maximumLimit),
            authorize: authorize, options: options
        ).endpoint
    }

    /// The routes every router gets; returns what the WebSocket route shares with them.
    func _addLiveQueries<Source: QueryableSource>(
        _ source: Source, at path: RouterPath, rules: LiveQueryRules,
        authorize: (@Sendable (Request, Context) async throws -> [LiveQueryFilter])?, options: LiveResultsOptions
    ) -> (
        endpoint: LiveResultsEndpoint, encoder: _UpdateEncoder<Source.Entity>,
        resolve: @Sendable (Request, Context) async throws -> _UpdatesSource<Source.Entity>
    ) where Source.Entity: Codable {
        let registry = LiveQueryRegistry(
            source: source, indexing: Array(rules.filters), maximumQueries: options.maximumLiveQueries,
            gracePeriod: options.liveQueryGracePeriod)
        let endpoint = LiveResultsEndpoint(
            maximumStreams: options.maximumStreams, liveQueries: { registry.liveQueryCount })
        let encoder = _UpdateEncoder<Source.Entity>(encoder: options.encoder, keeping: 64)
        let resolve: @Sendable (Request, Context) async throws -> _UpdatesSource<Source.Entity> = { request, context in
            let conditions = try await authorize?(request, context) ?? []
            return try await _LiveQueryResolution.source(
                for: request, registry: registry, rules: rules, conditions: conditions)
        }
        _addUpdateRoutes(at: path, endpoint: endpoint, encoder: encoder, options: options, source: resolve)
        return (endpoint, encoder, resolve)
    }
}

extension RouterMethods where Context: WebSocketRequestContext {
    /// Serves live queries of `source` at `path`, with a WebSocket stream besides the whole results and the
    /// Server-Sent Events: `GET path/updates?QUERY` (one update per text message; `?since=VERSION` resumes).
    ///
    /// See the other overload for the query, the sharing and the limits.
    ///
    /// - Parameters: As the other overload.
    /// - Returns: The routes' stream counts (both kinds of stream share ``LiveResultsOptions/maximumStreams``).
    /// - Complexity: As the other overload.
    @discardableResult
    public func addLiveQueries<Source: QueryableSource>(
        _ source: Source, at path: RouterPath, filters: [String], orders: [String],
        defaultOrder: [LiveQueryOrdering] = [], sectionedBy: String? = nil, maximumLimit: Int = 500,
        authorize: (@Sendable (Request, Context) async throws -> [LiveQueryFilter])? = nil,
        options: LiveResultsOptions = LiveResultsOptions()
    ) -> LiveResultsEndpoint where Source.Entity: Codable {
        let (endpoint, encoder, resolve) = _addLiveQueries(
            source, at: path,
            rules: LiveQueryRules(
                filters: Set(filters), orders: Set(orders), sectionedBy: sectionedBy, defaultOrder: defaultOrder,
                maximumLimit: maximumLimit),
            authorize: authorize, options: options)
        _addWebSocketRoute(at: path, endpoint: endpoint, encoder: encoder, options: options, source: resolve)
        return endpoint
    }
}

/// How a request of a live-queries route finds its window.
enum _LiveQueryResolution {
    /// The window `request` asks for, of its query's results held in `registry`.
    ///
    /// - Throws: `400` for a bad query; `503` with `Retry-After` when the registry is full or the query's
    ///   results cannot be fetched.
    static func source<Source: QueryableSource>(
        for request: Request, registry: LiveQueryRegistry<Source>, rules: LiveQueryRules, conditions: [LiveQueryFilter]
    ) async throws -> _UpdatesSource<Source.Entity> where Source.Entity: Codable {
        let asked: LiveQueryRequest<Source.Entity>
        do {
            asked = try LiveQueryRequest(parameters: parameters(of: request), rules: rules, conditions: conditions)
        } catch {
            throw HTTPError(.badRequest, message: error.description)
        }
        let results: LiveQueryResults<Source.Entity>
        do {
            results = try await registry.results(for: asked.query)
        } catch LiveQueryRegistryError.full {
            throw _StreamRefusal(reason: "too many live queries; try again later")
        } catch let error as HTTPResponseError {
            throw error
        } catch {
            throw _StreamRefusal(reason: "the query's results could not be fetched; try again later")
        }
        // Versions named by contents: a client that reconnects to another process of the service, following
        // the same database, resumes with one catch-up when that process's window held its contents.
        let window = results.window(asked.window)
        window.nameVersionsByContents(scope: asked.query.key)
        return .window(window, holding: results)
    }

    /// The request's query parameters, names and values percent-decoded, in order.
    static func parameters(of request: Request) -> [(String, String)] {
        request.uri.queryParameters.map { name, value in
            (String(name).removingPercentEncoding ?? String(name), String(value))
        }
    }
}
