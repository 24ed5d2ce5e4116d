import LiveResults
import Metrics

/// The metrics of one set of live routes, made through swift-metrics' API with the factory of their
/// ``LiveResultsOptions`` (never a backend: the application bootstraps one, the server example Prometheus).
///
/// Every set of routes in a process reports to the same names, with no dimension: a counter counts for all of them,
/// and each gauge is a `Meter` that each set moves by its own changes (``_MetricsSampling`` by the difference from
/// what it reported last), so that the process's value is the sum of its routes', whatever their number.
final class _ServingMetrics: Sendable {
    /// `liveresults_streams_open`: Server-Sent Events and WebSocket streams open now.
    let streamsOpen: Meter
    /// `liveresults_streams_refused_total`: streams refused because the most were open.
    let streamsRefused: Counter
    /// `liveresults_updates_sent_total`: updates written to streams, one per stream that received it.
    let updatesSent: Counter
    /// `liveresults_update_bytes_sent_total`: their bytes as written (a Server-Sent Event's framing included, a
    /// WebSocket message's payload).
    let updateBytesSent: Counter
    /// `liveresults_live_queries`: the live queries and embeddings held, sampled.
    let liveQueries: Meter
    /// `liveresults_held_versions` and `liveresults_held_version_bytes`: what the routes' controllers and windows
    /// hold for resumes, sampled (see `HeldVersions`).
    let heldVersions: Meter
    let heldVersionBytes: Meter

    /// The metrics made through `factory`.
    init(factory: any MetricsFactory) {
        streamsOpen = Meter(label: "liveresults_streams_open", factory: factory)
        streamsRefused = Counter(label: "liveresults_streams_refused_total", factory: factory)
        updatesSent = Counter(label: "liveresults_updates_sent_total", factory: factory)
        updateBytesSent = Counter(label: "liveresults_update_bytes_sent_total", factory: factory)
        liveQueries = Meter(label: "liveresults_live_queries", factory: factory)
        heldVersions = Meter(label: "liveresults_held_versions", factory: factory)
        heldVersionBytes = Meter(label: "liveresults_held_version_bytes", factory: factory)
    }

    /// Counts one update of `bytes` written to a stream.
    func sentUpdate(bytes: Int) {
        updatesSent.increment()
        updateBytesSent.increment(by: bytes)
    }
}
