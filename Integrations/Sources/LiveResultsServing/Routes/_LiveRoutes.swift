import Foundation
import HTTPTypes
import LiveResults
import NIOCore

/// What a set of live routes is, whatever framework serves it: `GET path` (the whole results, or PostgREST's
/// answer), `GET path/events` (Server-Sent Events) and `GET path/updates` (a WebSocket), their stream slots,
/// limits and refusals. An adapter registers the three routes with its framework and hands each request here.
///
/// Every method throws ``LiveResultsRefusal`` for what the routes refuse; an error of the adapter's (its
/// `authorize`, a source's error that makes its own response) passes through as it is.
package struct _LiveRoutes<Entity: FetchableEntity & Codable>: _AnyLiveRoutes {
    /// The routes' stream counts, slots and shutdown.
    package let endpoint: LiveResultsEndpoint
    private let encoder: _UpdateEncoder<Entity>
    private let options: LiveResultsOptions
    /// The heartbeats of the routes' Server-Sent Events streams.
    private let heartbeats: _HeartbeatTicker
    /// Whether refusals are PostgREST's error bodies (the live-queries routes).
    private let postgREST: Bool
    /// What `GET path` answers instead of the whole results (PostgREST's answer), if anything.
    private let answer: (@Sendable (LiveResultsRequest) async throws -> LiveResultsResponse)?
    /// The results a request follows.
    private let source: @Sendable (LiveResultsRequest) async throws -> _UpdatesSource<Entity>
    /// The routes of the requests whose `select=` embeds resources (their streams carry embedded rows), and
    /// which requests those are; `nil` for routes that do not embed.
    private let embedded: (routes: any _AnyLiveRoutes, embeds: @Sendable (LiveResultsRequest) -> Bool)?

    /// The routes of `controller`'s results: the whole results or a window of them (`?limit=`, `?offset=`), shared
    /// by the requests of one range; their heartbeats are timed on `clock` (the tests' clock).
    ///
    /// - Complexity: O(1).
    package init(
        controller: FetchedResultsController<Entity>, options: LiveResultsOptions,
        clock: some Clock<Duration> = ContinuousClock()
    ) {
        let maximumLimit = options.maximumWindowLimit
        let windows = _SharedWindows(of: controller)
        self.init(
            endpoint: LiveResultsEndpoint(options: options, heldVersions: { controller.heldVersions }),
            encoder: _UpdateEncoder<Entity>(encoder: options.encoder), options: options, postgREST: false,
            answer: nil, clock: clock
        ) { request in
            try _UpdatesSource.requested(by: request, of: controller, windows: windows, maximumLimit: maximumLimit)
        }
    }

    /// The routes of the live queries of `registry`, each request's query read by `route` with the request's
    /// conditions ANDed into it; `GET path` answers as PostgREST does.
    ///
    /// - Complexity: O(1).
    package init<Source: QueryableSource>(
        registry: LiveQueryRegistry<Source>, route: _LiveQueryRoute, options: LiveResultsOptions
    ) where Source.Entity == Entity {
        let encoder = _UpdateEncoder<Entity>(encoder: options.encoder, keeping: 64)
        let embeddings = _LiveEmbeddings(registry: registry, route: route, encoder: options.encoder)
        let source: @Sendable (LiveResultsRequest) async throws -> _UpdatesSource<Entity> = { request in
            try await _LiveQueryResolution.source(
                for: request, embeddings: embeddings, route: route, conditions: try await request.conditions())
        }
        let endpoint = LiveResultsEndpoint(
            options: options, liveQueries: { registry.liveQueryCount + embeddings.count },
            heldVersions: { registry.heldVersions + embeddings.heldVersions })
        let embedded = _LiveRoutes<EmbeddedRow<Entity>>(
            embeddings: embeddings, route: route, endpoint: endpoint, options: options)
        let embeds: @Sendable (LiveResultsRequest) -> Bool = { _LiveQueryResolution.embeds($0, route: route) }
        let rowEncoder = options.encoder
        self.init(
            endpoint: endpoint, encoder: encoder, options: options, postgREST: true,
            answer: { request in
                let format = PostgRESTFormat(accept: request.headers[.accept])
                guard format != .liveResults else {
                    if embeds(request) { return try await embedded.results(request) }
                    return try await _WholeResults.response(try await source(request), to: request, encoder: encoder)
                }
                return try await _LiveQueryResolution.answer(
                    to: request, format: format, embeddings: embeddings, route: route,
                    conditions: try await request.conditions(), encoder: rowEncoder)
            },
            source: source, embedded: (embedded, embeds))
    }

    /// The routes of the embedded rows of the live queries of a route: their streams, and their versioned whole
    /// results, in the endpoint of the route's own (one count of streams and slots for both).
    init<Parent: QueryableEntity & Codable, Source: QueryableSource>(
        embeddings: _LiveEmbeddings<Source>, route: _LiveQueryRoute, endpoint: LiveResultsEndpoint,
        options: LiveResultsOptions
    ) where Entity == EmbeddedRow<Parent>, Source.Entity == Parent {
        let encoder = _UpdateEncoder<Entity>(encoder: options.encoder, keeping: 64)
        self.init(
            endpoint: endpoint, encoder: encoder, options: options, postgREST: true, answer: nil,
            source: { request in
                try await _LiveQueryResolution.embeddedSource(
                    for: request, embeddings: embeddings, route: route, conditions: try await request.conditions())
            })
    }

    private init(
        endpoint: LiveResultsEndpoint, encoder: _UpdateEncoder<Entity>, options: LiveResultsOptions, postgREST: Bool,
        answer: (@Sendable (LiveResultsRequest) async throws -> LiveResultsResponse)?,
        clock: some Clock<Duration> = ContinuousClock(),
        source: @escaping @Sendable (LiveResultsRequest) async throws -> _UpdatesSource<Entity>,
        embedded: (routes: any _AnyLiveRoutes, embeds: @Sendable (LiveResultsRequest) -> Bool)? = nil
    ) {
        self.embedded = embedded
        heartbeats = _HeartbeatTicker(interval: options.heartbeatInterval, clock: clock)
        self.endpoint = endpoint
        self.encoder = encoder
        self.options = options
        self.postgREST = postgREST
        self.answer = answer
        self.source = source
    }

    /// `GET path`: the whole results (`304` when `If-None-Match` names their version), or PostgREST's answer.
    ///
    /// - Complexity: O(1) for a version already encoded, else O(*n*) for *n* results.
    package func results(_ request: LiveResultsRequest) async throws -> LiveResultsResponse {
        if let answer { return try await answer(request) }
        return try await _WholeResults.response(try await source(request), to: request, encoder: encoder)
    }

    /// `HEAD path` of a live-queries route: PostgREST's answer to `GET path`, or its refusal, for the adapter to
    /// send without its body (its `Content-Length` kept), as PostgREST answers `HEAD`: what its clients send to
    /// count rows (`select(count: "exact", head: true)` reads the total in `Content-Range`); `nil` on a route of
    /// whole results, whose `HEAD` is `404`.
    ///
    /// - Complexity: As ``results(_:)``.
    package func head(_ request: LiveResultsRequest) async throws -> LiveResultsResponse? {
        guard answer != nil else { return nil }
        do {
            return try await results(request)
        } catch let refusal as LiveResultsRefusal {
            return refusal.response
        }
    }

    /// `GET path/events`: a Server-Sent Events stream from the request's resume point (`Last-Event-ID`, else
    /// `?since=`), holding a slot; with `channel`, the client's connection, the stream ends and frees its slot
    /// as soon as the client goes away, else when a write fails.
    ///
    /// - Throws: `503` with `Retry-After` when ``LiveResultsOptions/maximumStreams`` are open.
    /// - Complexity: O(1) to start; the stream costs as `addLiveResults` says.
    package func events(_ request: LiveResultsRequest, channel: (any Channel)?) async throws
        -> LiveResultsStreamResponse
    {
        if let embedded, embedded.embeds(request) { return try await embedded.routes.events(request, channel: channel) }
        guard endpoint.hasRoom else {
            endpoint.countRefusal()
            throw _StreamRefusal.refusal(postgREST: postgREST)
        }
        let source = try await source(request)
        guard let slot = endpoint.openStream() else { throw _StreamRefusal.refusal(postgREST: postgREST) }
        // Watched from here, before the response starts: a client that leaves meanwhile is seen too.
        let departure = channel.map { _ClientDeparture.watch($0, slot: slot) }
        return _ServerSentEvents.response(
            source, since: _ResumePoint.version(of: request, header: .lastEventID), slot: slot, encoder: encoder,
            options: options, heartbeats: heartbeats, departure: departure)
    }

    /// `GET path/updates` before the upgrade: refuses a request the WebSocket could not serve, with its reason
    /// (the route is full, the query is bad), so that the client gets an HTTP answer rather than a close.
    ///
    /// - Complexity: O(1), plus what resolving the request's source costs.
    package func checkWebSocket(_ request: LiveResultsRequest) async throws {
        if let embedded, embedded.embeds(request) { return try await embedded.routes.checkWebSocket(request) }
        guard request.headers[.upgrade]?.lowercased() == "websocket" else {
            throw LiveResultsRefusal.message(.upgradeRequired, "this route is a WebSocket")
        }
        guard endpoint.hasRoom else {
            endpoint.countRefusal()
            throw _StreamRefusal.refusal(postgREST: postgREST)
        }
        _ = try await source(request)
    }

    /// `GET path/updates` after the upgrade: the updates from `?since=`, one text message each, to `outbound`
    /// until the client (whose messages are `inbound`) or the server closes. Closes with 1013 (try again later)
    /// when no slot is free or the results cannot be had now.
    ///
    /// - Complexity: As ``events(_:channel:)``.
    package func serveWebSocket(
        _ request: LiveResultsRequest, inbound: some AsyncSequence, outbound: some _WebSocketOutbound
    ) async throws {
        if let embedded, embedded.embeds(request) {
            return try await embedded.routes.serveWebSocket(request, inbound: inbound, outbound: outbound)
        }
        guard let slot = endpoint.openStream() else {
            // Another stream took the last slot between the upgrade's check and now.
            try await outbound.close(code: 1013, reason: "too many streams; try again later")
            return
        }
        let version = _ResumePoint.version(of: request, header: nil)
        let updates: _UpdatesSource<Entity>
        do {
            updates = try await source(request)
        } catch {
            try await outbound.close(code: 1013, reason: "the results are not available; try again later")
            return
        }
        try await _WebSocketUpdates.serve(
            updates, since: version, slot: slot, encoder: encoder, options: options, inbound: inbound,
            outbound: outbound)
    }
}
