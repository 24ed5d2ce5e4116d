import LiveResults
import LiveResultsServing
import Vapor

extension RoutesBuilder {
    /// Serves `controller`'s results at `path`: the whole results, a Server-Sent Events stream of updates that
    /// browsers resume after a reconnect, and a WebSocket stream of updates.
    ///
    /// ```swift
    /// let endpoint = app.liveResults(controller, at: "todos")
    /// app.lifecycle.use(endpoint)   // the streams end on shutdown, before the server stops
    /// // GET /todos          the whole results: a ResultsUpdate as JSON, with the version as its ETag
    /// // GET /todos/events   Server-Sent Events: `id:` the version, `data:` one update
    /// // GET /todos/updates  WebSocket: one update per text message; ?since=VERSION resumes
    /// ```
    ///
    /// The routes, their bytes, limits and refusals are those of `LiveResultsHummingbird`'s
    /// `addLiveResults(_:at:options:)`, the same serving core answering both. A request with `?limit=` (and
    /// `?offset=`) gets a window of the results. The events stream starts with the whole results, or, when the
    /// request names a version the controller still holds (`Last-Event-ID`, else `?since=`), with one catch-up
    /// update from it. The WebSocket stream only sends: a message from the client closes it with code 1008; a
    /// plain `GET` of it is answered `426 Upgrade Required`. WebSocketKit's close frames carry their code but no
    /// reason. A `HEAD` of the routes is answered `404` with no body, as LiveResultsHummingbird answers it.
    ///
    /// A stream whose client went away is noticed when a write to it fails: at the next update or heartbeat
    /// (`LiveResultsOptions/heartbeatInterval`), which frees its slot. Vapor does not give a route its
    /// connection, whose close would tell sooner.
    ///
    /// - Parameters:
    ///   - controller: The controller whose results are served; it keeps its own life.
    ///   - path: The routes' path.
    ///   - options: Limits and encoding; see `LiveResultsOptions`.
    /// - Returns: The routes' stream counts; register it with `app.lifecycle.use(_:)` so that the streams end on
    ///   shutdown.
    /// - Complexity: O(1) to add. Each stream costs O(*n*) for the whole results it starts with (O(*k* log *n*)
    ///   when it resumes *k* changes behind), then O(*k* log *n*) per update of *k* changes, encoded once for all
    ///   the streams that send it.
    @discardableResult
    public func liveResults<Entity: FetchableEntity & Codable>(
        _ controller: FetchedResultsController<Entity>, at path: PathComponent...,
        options: LiveResultsOptions = LiveResultsOptions()
    ) -> LiveResultsEndpoint {
        let routes = _LiveRoutes(controller: controller, options: options)
        _addLiveRoutes(routes, at: path, heartbeat: options.heartbeatInterval) { LiveResultsRequest($0) }
        return routes.endpoint
    }

    /// `GET path`, `GET path/events` and `GET path/updates` of `routes`, each request read by `read` (a
    /// WebSocket's once before the upgrade, so that a bad request is refused with its reason, and once after);
    /// a WebSocket is pinged every `heartbeat`. `HEAD path` of a live-queries route is its `GET` answer without the
    /// body, as PostgREST answers it; any other `HEAD` of them is `404` with no body.
    func _addLiveRoutes<Entity: FetchableEntity & Codable>(
        _ routes: _LiveRoutes<Entity>, at path: [PathComponent], heartbeat: Duration,
        read: @escaping @Sendable (Request) -> LiveResultsRequest
    ) {
        let group = grouped(path)
        // Vapor answers a HEAD with the GET route of its path, leaving out the body: a stream's would say it is
        // chunked and never end, which broke the connection. LiveResultsHummingbird answers HEAD of these routes
        // 404 with no body: so does this adapter.
        group.on(.HEAD) { request in
            // Vapor sends a response to `HEAD` without its body, with its `Content-Length`.
            guard let head = try await routes.head(read(request)) else { return Response(status: .notFound) }
            return Response(head)
        }
        for head in [["events"], ["updates"]] as [[PathComponent]] {
            group.on(.HEAD, head) { _ in Response(status: .notFound) }
        }
        group.get { request in
            try await Response.answering { Response(try await routes.results(read(request))) }
        }
        group.get("events") { request in
            try await Response.answering { Response(try await routes.events(read(request), channel: nil)) }
        }
        group.get("updates") { request in
            try await Response.answering {
                try await routes.checkWebSocket(read(request))
                return request.webSocket(shouldUpgrade: { $0.eventLoop.makeSucceededFuture([:]) }) {
                    request, socket in
                    _WebSocketWriter.serve(routes, read(request), on: socket, pingingEvery: heartbeat)
                }
            }
        }
    }
}
