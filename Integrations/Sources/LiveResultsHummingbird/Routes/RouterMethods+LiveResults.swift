import Hummingbird
import HummingbirdWebSocket
import LiveResults
import LiveResultsServing

extension RouterMethods {
    /// Serves `controller`'s results at `path`: the whole results, and a Server-Sent Events stream of
    /// updates that browsers resume after a reconnect.
    ///
    /// ```swift
    /// let router = Router()
    /// router.addLiveResults(controller, at: "todos")
    /// // GET /todos          the whole results: a ResultsUpdate as JSON, with the version as its ETag
    /// // GET /todos/events   Server-Sent Events: `id:` the version, `data:` one update
    /// ```
    ///
    /// A request with `?limit=` (and `?offset=`) gets a window of the results instead of all of them: positions
    /// `offset..<offset + limit` in the controller's order, with the window's change sets (see
    /// `LiveResultsOptions/maximumWindowLimit`). The streams of one range share one `LiveWindow`, kept while the
    /// routes live, for up to 32 ranges (a range beyond them gets a window of its own, closed with its stream): a
    /// change is worked out once per range, not once per stream, and a stream of a window that reconnects while
    /// the window is kept resumes from the version it read with one catch-up (the whole window otherwise).
    ///
    /// The events stream starts with the whole results, or, when the request names a version the
    /// controller still holds (`Last-Event-ID`, which browsers send when they reconnect, or `?since=`),
    /// with one catch-up update from it. A version that is not held — too old, another process's, from the
    /// future, or not a version at all — gets the whole results. With a router whose context is a
    /// `WebSocketRequestContext`, the routes include a WebSocket stream too (see the other overload). A `HEAD` of
    /// the routes is answered `404` with no body, as LiveResultsVapor answers it.
    ///
    /// - Parameters:
    ///   - controller: The controller whose results are served; it keeps its own life (fetch it, observe
    ///     its sources).
    ///   - path: The routes' path.
    ///   - options: Limits and encoding; see `LiveResultsOptions`.
    /// - Returns: The routes' stream counts.
    /// - Complexity: O(1) to add. Each stream costs O(*n*) for the whole results it starts with (O(*k* log
    ///   *n*) when it resumes *k* changes behind), then O(*k* log *n*) per update of *k* changes, encoded
    ///   once for all the streams that send it.
    @discardableResult
    public func addLiveResults<Entity: FetchableEntity & Codable>(
        _ controller: FetchedResultsController<Entity>, at path: RouterPath,
        options: LiveResultsOptions = LiveResultsOptions()
    ) -> LiveResultsEndpoint {
        _addLiveResults(controller, at: path, options: options).endpoint
    }

    /// The routes every router gets; returns the core's routes, which the WebSocket route shares.
    func _addLiveResults<Entity: FetchableEntity & Codable>(
        _ controller: FetchedResultsController<Entity>, at path: RouterPath, options: LiveResultsOptions
    ) -> _LiveRoutes<Entity> {
        let routes = _LiveRoutes(controller: controller, options: options)
        _addUpdateRoutes(routes, at: path) { request, _ in LiveResultsRequest(request) }
        return routes
    }

    /// `GET path` and `GET path/events` of `routes`, each request read by `read`. `HEAD path` of a live-queries
    /// route is its `GET` answer without the body, as PostgREST answers it; any other `HEAD` of them is `404` with
    /// no body.
    func _addUpdateRoutes<Entity: FetchableEntity & Codable>(
        _ routes: _LiveRoutes<Entity>, at path: RouterPath,
        read: @escaping @Sendable (Request, Context) -> LiveResultsRequest
    ) {
        let group = group(path)
        // Else `HEAD` is `404` with no body, whatever the application answers for a path it has no route for, as
        // LiveResultsVapor answers it: so both adapters send the same bytes. And a router made with
        // `.autoGenerateHeadEndpoints` would answer `HEAD` with the `GET` route, opening a stream to send none of it.
        group.head { request, context in
            do {
                // Hummingbird writes the body of a response to `HEAD`: its head response has none.
                guard let head = try await routes.head(read(request, context)) else {
                    return Response(status: .notFound)
                }
                return Response(head).createHeadResponse()
            } catch let error as any HTTPResponseError {
                // The application's refusal (its `authorize`), without the body Hummingbird would write to `HEAD`.
                return try error.response(from: request, context: context).createHeadResponse()
            }
        }
        group.head("events") { _, _ in Response(status: .notFound) }
        group.get { request, context in
            Response(try await _RefusalResponse.answering { try await routes.results(read(request, context)) })
        }
        group.get("events") { request, context in
            let channel = (context as? any LiveResultsChannelContext)?.channel
            return Response(
                try await _RefusalResponse.answering {
                    try await routes.events(read(request, context), channel: channel)
                })
        }
    }
}

extension RouterMethods where Context: WebSocketRequestContext {
    /// Serves `controller`'s results at `path`: the whole results, a Server-Sent Events stream, and a
    /// WebSocket stream of updates.
    ///
    /// ```swift
    /// let router = Router(context: BasicWebSocketRequestContext.self)
    /// router.addLiveResults(controller, at: "todos")
    /// let app = Application(router: router, server: .http1WebSocketUpgrade(webSocketRouter: router))
    /// // GET /todos, GET /todos/events   as in the other overload
    /// // GET /todos/updates  WebSocket: one update per text message; ?since=VERSION resumes
    /// ```
    ///
    /// The WebSocket stream only sends: a message from the client closes it with code 1008 (policy
    /// violation). A plain `GET` of the WebSocket route, without an upgrade, is answered with
    /// `426 Upgrade Required`.
    ///
    /// - Parameters:
    ///   - controller: The controller whose results are served.
    ///   - path: The routes' path.
    ///   - options: Limits and encoding; see `LiveResultsOptions`.
    /// - Returns: The routes' stream counts (both kinds of stream share `LiveResultsOptions/maximumStreams`).
    /// - Complexity: As the other overload.
    @discardableResult
    public func addLiveResults<Entity: FetchableEntity & Codable>(
        _ controller: FetchedResultsController<Entity>, at path: RouterPath,
        options: LiveResultsOptions = LiveResultsOptions()
    ) -> LiveResultsEndpoint {
        let routes = _addLiveResults(controller, at: path, options: options)
        _addWebSocketRoute(routes, at: path) { request, _ in LiveResultsRequest(request) }
        return routes.endpoint
    }

    /// `GET path/updates`, the WebSocket of `routes`, each request read by `read` (once before the upgrade, so
    /// that a bad request is refused with its reason, and once after). `HEAD` of it is `404` with no body.
    func _addWebSocketRoute<Entity: FetchableEntity & Codable>(
        _ routes: _LiveRoutes<Entity>, at path: RouterPath,
        read: @escaping @Sendable (Request, Context) -> LiveResultsRequest
    ) {
        // As the other routes' (`_addUpdateRoutes`).
        group(path).head("updates") { _, _ in Response(status: .notFound) }
        group(path).ws("updates") { request, context in
            try await _RefusalResponse.answering { try await routes.checkWebSocket(read(request, context)) }
            return .upgrade([:])
        } onUpgrade: { inbound, outbound, context in
            try await routes.serveWebSocket(
                read(context.request, context.requestContext), inbound: inbound.messages(maxSize: 4_096),
                outbound: _WebSocketWriter(outbound: outbound))
        }
    }
}
