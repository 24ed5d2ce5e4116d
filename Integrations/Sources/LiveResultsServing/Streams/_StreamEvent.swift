import AsyncAlgorithms
import LiveResults
import ServiceLifecycle

/// What a stream sends next: an update, a heartbeat, a change of the source's status, or nothing more (the
/// server is shutting down, or the client went away).
enum _StreamEvent<Entity: FetchableEntity & Codable>: Sendable {
    case update(ResultsUpdate<Entity>)
    case heartbeat
    case source(available: Bool)
    case shutdown

    /// The events of one stream: the controller's updates since `version`, a heartbeat every `heartbeat`
    /// (if any), and a shutdown on the server's graceful shutdown, the endpoint's (see
    /// `LiveResultsEndpoint.run()`), or when `departure` sees the client go away, merged; then `body` reads
    /// them.
    ///
    /// The merge takes one update at a time from the controller and only when `body` asks for the next
    /// event: a client that stops reading stops the stream here, and the controller's own bound (its
    /// `bufferLimit`, then one catch-up) holds what it has not read.
    static func withEvents<Result>(
        of source: _UpdatesSource<Entity>,
        since version: ResultsVersion?,
        options: LiveResultsOptions,
        heartbeat: Duration?,
        departure: _ClientDeparture?,
        slot: _StreamSlot,
        _ body: (
            inout AsyncMerge3Sequence<
                AsyncMapSequence<ResultsUpdates<Entity>, _StreamEvent>,
                AsyncMapSequence<AsyncTimerSequence<ContinuousClock>, _StreamEvent>,
                AsyncStream<_StreamEvent>
            >.AsyncIterator
        ) async throws -> Result
    ) async throws -> Result {
        // What does not come from the controller or the timer: shutdowns, departures, the source's status.
        let (control, controlSignal) = AsyncStream<_StreamEvent>.makeStream()
        // Without a heartbeat the timer never fires in practice (a year), which keeps one merged type.
        let ticks = AsyncTimerSequence(interval: heartbeat ?? .seconds(365 * 86_400), clock: ContinuousClock())
        let events = merge(
            source.updates(version, options.bufferLimit).map { _StreamEvent.update($0) },
            ticks.map { _ in _StreamEvent.heartbeat },
            control)
        var iterator = events.makeAsyncIterator()
        // Without a departure, a client that left is noticed when a write fails (an update, a heartbeat).
        departure?.onDeparture { controlSignal.yield(.shutdown) }
        defer { departure?.stop() }
        let stopListening = slot.endpoint.onShutdown { controlSignal.yield(.shutdown) }
        defer { stopListening() }
        let sourceWatch = options.sourceStatus?.watch { controlSignal.yield(.source(available: $0)) }
        defer { sourceWatch?.stop() }
        if sourceWatch?.isAvailable == false { controlSignal.yield(.source(available: false)) }
        return try await withGracefulShutdownHandler {
            try await body(&iterator)
        } onGracefulShutdown: {
            controlSignal.yield(.shutdown)
        }
    }
}
