import Foundation
import Metrics

/// How the routes of `addLiveResults(_:at:options:)` serve their streams.
///
/// ```swift
/// var options = LiveResultsOptions()
/// options.maximumStreams = 200
/// router.addLiveResults(controller, at: "todos", options: options)
/// ```
public struct LiveResultsOptions: Sendable {
    /// The most streams (Server-Sent Events and WebSocket together) open at once on these routes; one more
    /// is refused with `503 Service Unavailable` and `Retry-After`. 1,000 by default.
    ///
    /// What a stream costs is its connection's (the query's controller, window and history are shared by its
    /// streams, and a stream runs no task of its own): about 42 KB resident, of which about 31 KB is the framework's
    /// connection, measured with 1,000 idle Server-Sent Events streams (debug build), and one file descriptor. Raise it
    /// with the process's descriptor limit (`ulimit -n`, often 1,024 by default; streams, database connections
    /// and listening sockets all count): a limit it cannot reach only moves the refusal from a clear `503` to
    /// failed `accept`s.
    public var maximumStreams: Int

    /// How many updates a stream's client may fall behind before what it has not read is replaced by one
    /// catch-up update (the `bufferLimit` of `FetchedResultsController.updates(since:bufferLimit:)`); 128
    /// by default. With the kernel's socket buffers, this bounds what a client that stops reading costs.
    public var bufferLimit: Int

    /// How long a Server-Sent Events stream stays silent before it sends a comment line, so that proxies
    /// keep it open and a client that went away is noticed (its write fails); 15 seconds by default. One task of
    /// the routes looks at all their streams every quarter of it, so the comment comes after one to one and a
    /// quarter intervals of silence.
    public var heartbeatInterval: Duration

    /// The reconnection delay a Server-Sent Events stream asks browsers for (its `retry:` field); one
    /// second by default.
    public var reconnectionDelay: Duration

    /// Encodes each update; a plain `JSONEncoder` by default. Set its strategies for your entities' JSON;
    /// do not make it pretty-print (Server-Sent Events carry one update per `data:` line).
    public var encoder: JSONEncoder

    /// Whether the controller's source is within reach, which Server-Sent Events streams tell their clients
    /// in an event of their own (see ``LiveResultsSourceStatus``); `nil`, the default, sends no such event.
    public var sourceStatus: LiveResultsSourceStatus?

    /// The largest `?limit=` a request may ask for, to get a window of the results instead of all of them
    /// (see `FetchedResultsController.window(_:)`); a larger one is refused with `400`. 1,000 by default.
    public var maximumWindowLimit: Int

    /// The most queries a live-queries route keeps live at once (see
    /// `addLiveQueries(_:at:filters:orders:defaultOrder:sections:maximumLimit:authorize:options:)`): one
    /// more, when every live query is streamed, is refused with `503` and `Retry-After`. 1,000 by default.
    public var maximumLiveQueries: Int

    /// How long a live query nobody streams stays live, so that a client that reconnects meanwhile resumes
    /// with one catch-up; 30 seconds by default.
    public var liveQueryGracePeriod: Duration

    /// Where the routes report their metrics (the streams open and refused, the updates sent and their bytes, the
    /// live queries, the held versions; *What to watch* in *Serving live results* lists them): `nil`, the default,
    /// is swift-metrics' `MetricsSystem.factory` when the routes are added, so bootstrap the metrics system before.
    /// A test passes a factory of its own, since the global one is bootstrapped once per process.
    public var metricsFactory: (any MetricsFactory)?

    /// How often the gauges that are read rather than counted (live queries, held versions) are read; 5 seconds
    /// by default. Each reading costs O(*q* + *W* + *v*) for *q* live queries, *W* windows and *v* held versions;
    /// none is made while the factory is swift-metrics' no-op one.
    public var metricsSamplingInterval: Duration

    /// Options with the defaults above.
    public init(
        maximumStreams: Int = 1_000,
        bufferLimit: Int = 128,
        heartbeatInterval: Duration = .seconds(15),
        reconnectionDelay: Duration = .seconds(1),
        encoder: JSONEncoder = JSONEncoder(),
        sourceStatus: LiveResultsSourceStatus? = nil,
        maximumWindowLimit: Int = 1_000,
        maximumLiveQueries: Int = 1_000,
        liveQueryGracePeriod: Duration = .seconds(30),
        metricsFactory: (any MetricsFactory)? = nil,
        metricsSamplingInterval: Duration = .seconds(5)
    ) {
        self.metricsFactory = metricsFactory
        self.metricsSamplingInterval = metricsSamplingInterval
        self.maximumLiveQueries = maximumLiveQueries
        self.liveQueryGracePeriod = liveQueryGracePeriod
        self.maximumWindowLimit = maximumWindowLimit
        self.maximumStreams = maximumStreams
        self.bufferLimit = bufferLimit
        self.heartbeatInterval = heartbeatInterval
        self.reconnectionDelay = reconnectionDelay
        self.encoder = encoder
        self.sourceStatus = sourceStatus
    }
}
