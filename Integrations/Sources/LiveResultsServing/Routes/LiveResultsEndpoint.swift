import LiveResults
import Metrics
import NIOConcurrencyHelpers
import ServiceLifecycle

/// The routes that `addLiveResults(_:at:options:)` added: counts of their
/// streams, for metrics and tests.
///
/// ```swift
/// let endpoint = router.addLiveResults(controller, at: "todos")
/// print(endpoint.openStreams)   // streams open now
/// ```
public final class LiveResultsEndpoint: Sendable {
    /// What the counters hold.
    struct Counts {
        var open = 0
        var served = 0
        var refused = 0
        /// What ends each running stream, by a number of its own, for ``run()``.
        var shutdowns: [Int: @Sendable () -> Void] = [:]
        var nextShutdown = 0
        var isShuttingDown = false
    }

    /// The most streams open at once.
    public let maximumStreams: Int
    private let counts = NIOLockedValueBox(Counts())

    private let liveQueries: @Sendable () -> Int
    /// The routes' metrics (see *What to watch* in *Serving live results*).
    let metrics: _ServingMetrics
    /// Samples the gauges that are read, not counted, while the endpoint lives; `nil` when metrics go nowhere.
    private let sampling: Task<Void, Never>?

    /// An endpoint of at most ``LiveResultsOptions/maximumStreams`` streams, reporting to the options' metrics
    /// factory; `liveQueries` counts its live queries, `heldVersions` what its controllers and windows hold.
    package init(
        options: LiveResultsOptions, liveQueries: @escaping @Sendable () -> Int = { 0 },
        heldVersions: @escaping @Sendable () -> HeldVersions
    ) {
        self.maximumStreams = max(0, options.maximumStreams)
        self.liveQueries = liveQueries
        let factory = options.metricsFactory ?? MetricsSystem.factory
        metrics = _ServingMetrics(factory: factory)
        // Without a backend, reading the gauges would cost each interval for nothing.
        sampling =
            factory is NOOPMetricsHandler
            ? nil
            : _MetricsSampling.start(every: options.metricsSamplingInterval, into: metrics) {
                _MetricsSampling.Sample(liveQueries: liveQueries(), held: heldVersions())
            }
    }

    deinit {
        sampling?.cancel()
    }

    /// The queries a live-queries route keeps live now, streamed or in their grace period; 0 for the routes of
    /// `addLiveResults(_:at:options:)`.
    ///
    /// - Complexity: O(1).
    public var liveQueryCount: Int { liveQueries() }

    /// The streams open now (Server-Sent Events and WebSocket).
    public var openStreams: Int { counts.withLockedValue { $0.open } }

    /// The streams opened since the routes were added.
    public var servedStreams: Int { counts.withLockedValue { $0.served } }

    /// The streams refused because ``maximumStreams`` were open.
    public var refusedStreams: Int { counts.withLockedValue { $0.refused } }

    /// Whether a stream could open now (a hint: ``openStream()`` decides).
    var hasRoom: Bool { counts.withLockedValue { $0.open < maximumStreams } }

    /// A slot for one stream, released when the slot is; `nil` (counted as refused) when none is free.
    func openStream() -> _StreamSlot? {
        let opened = counts.withLockedValue { counts in
            guard counts.open < maximumStreams else {
                counts.refused += 1
                return false
            }
            counts.open += 1
            counts.served += 1
            return true
        }
        guard opened else {
            metrics.streamsRefused.increment()
            return nil
        }
        metrics.streamsOpen.increment()
        return _StreamSlot(self)
    }

    /// Counts a refusal made before a slot was asked for (a WebSocket upgrade refused up front).
    func countRefusal() {
        counts.withLockedValue { $0.refused += 1 }
        metrics.streamsRefused.increment()
    }

    /// Calls `shutdown` when ``run()`` shuts the streams down (at once if it has), until the returned
    /// function is called.
    func onShutdown(_ shutdown: @escaping @Sendable () -> Void) -> @Sendable () -> Void {
        let key = counts.withLockedValue { counts -> Int? in
            guard !counts.isShuttingDown else { return nil }
            counts.nextShutdown += 1
            counts.shutdowns[counts.nextShutdown] = shutdown
            return counts.nextShutdown
        }
        guard let key else {
            shutdown()
            return {}
        }
        return { [counts] in _ = counts.withLockedValue { $0.shutdowns.removeValue(forKey: key) } }
    }

    fileprivate func close() {
        counts.withLockedValue { $0.open -= 1 }
        metrics.streamsOpen.decrement()
    }
}

extension LiveResultsEndpoint: Service {
    /// Waits for a graceful shutdown, then ends the streams and returns once they have ended.
    ///
    /// Add the endpoint to the `ServiceGroup` after the `Application`: a group shuts its services down in
    /// the reverse order, so the streams end first — Server-Sent Events responses finish and WebSockets
    /// close with code 1001 (going away), which tells clients to reconnect — and the server stops after.
    /// Without it, the streams end on the server's own graceful shutdown, where Hummingbird WebSocket
    /// closes WebSockets with code 1000 (normal closure) if it gets there first.
    ///
    /// ```swift
    /// let endpoint = router.addLiveResults(controller, at: "todos")
    /// let app = Application(router: router, server: .http1WebSocketUpgrade(webSocketRouter: router))
    /// var services = ServiceGroupConfiguration(
    ///     services: [app, endpoint], gracefulShutdownSignals: [.sigterm], logger: logger)
    /// services.maximumGracefulShutdownDuration = .seconds(10)
    /// try await ServiceGroup(configuration: services).run()
    /// ```
    ///
    /// Bound the shutdown, as above: a stream whose client stopped reading ends only once its pending write does,
    /// which waits for the client to read or its connection to fail.
    ///
    /// - Complexity: O(*s*) for *s* open streams.
    public func run() async throws {
        // A cancellation ends the wait too: then the streams are cancelled with the server.
        try? await gracefulShutdown()
        await shutDownStreams()
    }

    /// Ends the open streams, and the streams that open from now on at once, then returns once they have ended
    /// (or the task is cancelled): what ``run()`` does on a graceful shutdown, for an adapter whose framework
    /// shuts down in a lifecycle of its own.
    ///
    /// - Complexity: O(*s*) for *s* open streams.
    package func shutDownStreams() async {
        endStreams()
        while openStreams > 0, !Task.isCancelled {
            try? await Task.sleep(for: .milliseconds(10))
        }
    }

    /// Tells the open streams to end, and the streams that open from now on to end at once, without waiting for
    /// them: for a framework whose shutdown cannot wait.
    ///
    /// - Complexity: O(*s*) for *s* open streams.
    package func endStreams() {
        let shutdowns = counts.withLockedValue { counts in
            counts.isShuttingDown = true
            return Array(counts.shutdowns.values)
        }
        for shutdown in shutdowns { shutdown() }
    }
}

/// One open stream of an endpoint. Released by ``release()`` when its stream ends or its client leaves, or when the
/// last reference goes (a response body that is never written, because the client left first, releases its slot
/// too).
final class _StreamSlot: Sendable {
    /// The endpoint whose stream this is.
    let endpoint: LiveResultsEndpoint
    private let released = NIOLockedValueBox(false)

    fileprivate init(_ endpoint: LiveResultsEndpoint) {
        self.endpoint = endpoint
    }

    /// Gives the slot back now, once: its client went away, whatever the stream's task still waits for
    /// (a write to a closed connection can wait until the stream's next heartbeat).
    func release() {
        let first = released.withLockedValue { released in
            defer { released = true }
            return !released
        }
        if first { endpoint.close() }
    }

    deinit {
        release()
    }
}
