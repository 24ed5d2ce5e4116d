import LiveResults
import ServiceLifecycle

/// What a stream sends next: an update, a heartbeat, a change of the source's status, or nothing more (the
/// server is shutting down, the client went away, or the stream's updates ended).
enum _StreamEvent<Entity: FetchableEntity & Codable>: Sendable {
    case update(ResultsUpdate<Entity>)
    case heartbeat
    case source(available: Bool)
    case shutdown

    /// The events of one stream: the controller's updates since `version`, a heartbeat from `heartbeats` after a
    /// silence (if any), and a shutdown on the server's graceful shutdown, the endpoint's (see
    /// `LiveResultsEndpoint.run()`), or when `departure` sees the client go away; then `body` reads them.
    ///
    /// They all meet in one ``_StreamQueue`` that `body`'s task drains: the stream runs no task of its own. Its
    /// updates are taken one at a time and only when `body` asks for the next event: a client that stops reading
    /// stops the stream here, and the controller's own bound (its `bufferLimit`, then one catch-up) holds what it
    /// has not read.
    static func withEvents<Result>(
        of source: _UpdatesSource<Entity>,
        since version: ResultsVersion?,
        options: LiveResultsOptions,
        heartbeats: _HeartbeatTicker?,
        departure: _ClientDeparture?,
        slot: _StreamSlot,
        _ body: (inout _StreamEvents<Entity>) async throws -> Result
    ) async throws -> Result {
        let queue = _StreamQueue(heartbeats: heartbeats)
        var events = _StreamEvents(updates: source.updates(version, options.bufferLimit), queue: queue)
        let heartbeat = heartbeats?.add(queue)
        defer { if let heartbeat { heartbeats?.remove(heartbeat) } }
        // Without a departure, a client that left is noticed when a write fails (an update, a heartbeat).
        departure?.onDeparture { queue.end() }
        defer { departure?.stop() }
        let stopListening = slot.endpoint.onShutdown { queue.end() }
        defer { stopListening() }
        let sourceWatch = options.sourceStatus?.watch { queue.sourceChanged(available: $0) }
        defer { sourceWatch?.stop() }
        if sourceWatch?.isAvailable == false { queue.sourceChanged(available: false) }
        return try await withGracefulShutdownHandler {
            try await body(&events)
        } onGracefulShutdown: {
            queue.end()
        }
    }
}
