import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdWebSocket
import LiveResults
import NIOCore
import NIOWebSocket

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
    /// `offset..<offset + limit` in the controller's order, each stream a `LiveWindow` of its own, with the
    /// window's change sets (see ``LiveResultsOptions/maximumWindowLimit``). A window's versions are its own:
    /// a reconnecting stream of a window gets the whole window (a page, not the results).
    ///
    /// The events stream starts with the whole results, or, when the request names a version the
    /// controller still holds (`Last-Event-ID`, which browsers send when they reconnect, or `?since=`),
    /// with one catch-up update from it. A version that is not held — too old, another process's, from the
    /// future, or not a version at all — gets the whole results. With a router whose context is a
    /// `WebSocketRequestContext`, the routes include a WebSocket stream too (see the other overload).
    ///
    /// - Parameters:
    ///   - controller: The controller whose results are served; it keeps its own life (fetch it, observe
    ///     its sources).
    ///   - path: The routes' path.
    ///   - options: Limits and encoding; see ``LiveResultsOptions``.
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

    /// The routes every router gets; returns what the WebSocket route shares with them.
    func _addLiveResults<Entity: FetchableEntity & Codable>(
        _ controller: FetchedResultsController<Entity>, at path: RouterPath, options: LiveResultsOptions
    ) -> (endpoint: LiveResultsEndpoint, encoder: _UpdateEncoder<Entity>) {
        let endpoint = LiveResultsEndpoint(maximumStreams: options.maximumStreams)
        let encoder = _UpdateEncoder<Entity>(encoder: options.encoder)
        let maximumLimit = options.maximumWindowLimit
        _addUpdateRoutes(at: path, endpoint: endpoint, encoder: encoder, options: options) { request, _ in
            try _UpdatesSource.requested(by: request, of: controller, maximumLimit: maximumLimit)
        }
        return (endpoint, encoder)
    }

    /// `GET path` (the whole results, or what `answer` answers) and `GET path/events` (Server-Sent Events) of
    /// the source each request finds with `source`; `postgREST` refuses streams with PostgREST's error body.
    func _addUpdateRoutes<Entity: FetchableEntity & Codable>(
        at path: RouterPath, endpoint: LiveResultsEndpoint, encoder: _UpdateEncoder<Entity>,
        options: LiveResultsOptions, postgREST: Bool = false,
        answer: (@Sendable (Request, Context) async throws -> Response)? = nil,
        source: @escaping @Sendable (Request, Context) async throws -> _UpdatesSource<Entity>
    ) {
        let routes = group(path)
        routes.get { request, context in
            if let answer { return try await answer(request, context) }
            return try await _WholeResults.response(
                try await source(request, context), to: request, encoder: encoder)
        }
        routes.get("events") { request, context in
            guard endpoint.hasRoom else {
                endpoint.countRefusal()
                throw _StreamRefusal(postgREST: postgREST)
            }
            let source = try await source(request, context)
            guard let slot = endpoint.openStream() else { throw _StreamRefusal(postgREST: postgREST) }
            // Watched from here, before the response starts: a client that leaves meanwhile is seen too.
            let departure = (context as? any LiveResultsChannelContext).map {
                _ClientDeparture.watch($0.channel, slot: slot)
            }
            return _ServerSentEvents.response(
                source, since: _ResumePoint.version(of: request, header: .lastEventID), slot: slot,
                encoder: encoder, options: options, departure: departure)
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
    ///   - options: Limits and encoding; see ``LiveResultsOptions``.
    /// - Returns: The routes' stream counts (both kinds of stream share ``LiveResultsOptions/maximumStreams``).
    /// - Complexity: As the other overload.
    @discardableResult
    public func addLiveResults<Entity: FetchableEntity & Codable>(
        _ controller: FetchedResultsController<Entity>, at path: RouterPath,
        options: LiveResultsOptions = LiveResultsOptions()
    ) -> LiveResultsEndpoint {
        let (endpoint, encoder) = _addLiveResults(controller, at: path, options: options)
        let maximumLimit = options.maximumWindowLimit
        _addWebSocketRoute(at: path, endpoint: endpoint, encoder: encoder, options: options) { request, _ in
            try _UpdatesSource.requested(by: request, of: controller, maximumLimit: maximumLimit)
        }
        return endpoint
    }

    /// `GET path/updates`, a WebSocket of the source each request finds with `source` (called once before the
    /// upgrade, so that a bad request is refused with its reason, and once after).
    func _addWebSocketRoute<Entity: FetchableEntity & Codable>(
        at path: RouterPath, endpoint: LiveResultsEndpoint, encoder: _UpdateEncoder<Entity>,
        options: LiveResultsOptions, postgREST: Bool = false,
        source: @escaping @Sendable (Request, Context) async throws -> _UpdatesSource<Entity>
    ) {
        group(path).ws("updates") { request, context in
            guard request.headers[.upgrade]?.lowercased() == "websocket" else {
                throw HTTPError(.upgradeRequired, message: "this route is a WebSocket")
            }
            guard endpoint.hasRoom else {
                endpoint.countRefusal()
                throw _StreamRefusal(postgREST: postgREST)
            }
            // A bad request is refused before the upgrade, with its reason; the source is found again after it.
            _ = try await source(request, context)
            return .upgrade([:])
        } onUpgrade: { inbound, outbound, context in
            guard let slot = endpoint.openStream() else {
                // Another stream took the last slot between the upgrade's check and now.
                try await outbound.close(.unknown(1013), reason: "too many streams; try again later")
                return
            }
            let version = _ResumePoint.version(of: context.request, header: nil)
            let updates: _UpdatesSource<Entity>
            do {
                updates = try await source(context.request, context.requestContext)
            } catch {
                try await outbound.close(.unknown(1013), reason: "the results are not available; try again later")
                return
            }
            try await _WebSocketUpdates.serve(
                updates, since: version, slot: slot, encoder: encoder, options: options,
                inbound: inbound, outbound: outbound)
        }
    }
}
