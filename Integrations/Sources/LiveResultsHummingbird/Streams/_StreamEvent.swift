import AsyncAlgorithms
import LiveResults
import ServiceLifecycle

/// What a stream sends next: an update, a heartbeat, or nothing more (the server is shutting down).
enum _StreamEvent<Entity: FetchableEntity & Codable>: Sendable {
    case update(ResultsUpdate<Entity>)
    case heartbeat
    case shutdown

    /// The events of one stream: the controller's updates since `version`, a heartbeat every `heartbeat`
    /// (if any), and a shutdown on the server's graceful shutdown, merged; then `body` reads them.
    ///
    /// The merge takes one update at a time from the controller and only when `body` asks for the next
    /// event: a client that stops reading stops the stream here, and the controller's own bound (its
    /// `bufferLimit`, then one catch-up) holds what it has not read.
    static func withEvents<Result>(
        of controller: FetchedResultsController<Entity>,
        since version: ResultsVersion?,
        options: LiveResultsOptions,
        heartbeat: Duration?,
        _ body: (
            inout AsyncMerge3Sequence<
                AsyncMapSequence<ResultsUpdates<Entity>, _StreamEvent>,
                AsyncMapSequence<AsyncTimerSequence<ContinuousClock>, _StreamEvent>,
                AsyncStream<_StreamEvent>
            >.AsyncIterator
        ) async throws -> Result
    ) async throws -> Result {
        let (shutdown, shutdownSignal) = AsyncStream<_StreamEvent>.makeStream()
        // Without a heartbeat the timer never fires in practice (a year), which keeps one merged type.
        let ticks = AsyncTimerSequence(interval: heartbeat ?? .seconds(365 * 86_400), clock: ContinuousClock())
        let events = merge(
            controller.updates(since: version, bufferLimit: options.bufferLimit).map { _StreamEvent.update($0) },
            ticks.map { _ in _StreamEvent.heartbeat },
            shutdown)
        var iterator = events.makeAsyncIterator()
        return try await withGracefulShutdownHandler {
            try await body(&iterator)
        } onGracefulShutdown: {
            shutdownSignal.yield(.shutdown)
        }
    }
}
