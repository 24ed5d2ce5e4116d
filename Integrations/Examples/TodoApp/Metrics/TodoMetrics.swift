import Foundation
import HTTPTypes
import Metrics
import Prometheus

/// What the server example reports to an operator, in Prometheus' text format at `GET /metrics`: the live routes'
/// and the change feed's metrics (see *What to watch* in *Serving live results*), and the framework's own where it
/// reports through swift-metrics.
///
/// The library emits through swift-metrics' API only; this is the one backend, swift-prometheus' registry, which
/// both servers answer `/metrics` from. The executables call ``bootstrap()`` once; a test makes a registry of its
/// own and hands it to the routes (swift-metrics' global system can be bootstrapped only once per process).
///
/// ```swift
/// let metrics = TodoMetrics.bootstrap()   // in the executable, before anything makes a metric
/// router.get("metrics") { _, _ in Response(metrics.response()) }
/// ```
public struct TodoMetrics: Sendable {
    /// The collectors, rendered by ``response()``.
    public let registry: PrometheusCollectorRegistry

    /// Metrics kept in `registry`, a new one by default.
    ///
    /// - Complexity: O(1).
    public init(registry: PrometheusCollectorRegistry = PrometheusCollectorRegistry()) {
        self.registry = registry
    }

    /// The factory that makes swift-metrics' metrics in ``registry``: for `LiveResultsOptions.metricsFactory`, and
    /// what ``bootstrap()`` makes global.
    ///
    /// - Complexity: O(1).
    public var factory: PrometheusMetricsFactory { PrometheusMetricsFactory(registry: registry) }

    /// Metrics with a new registry, made swift-metrics' global backend (`MetricsSystem.bootstrap`): what the
    /// executables do once, at their start, so that whatever reports through swift-metrics (the change feed, the
    /// framework) lands in ``registry``.
    ///
    /// - Precondition: Called once per process: swift-metrics refuses a second bootstrap.
    /// - Complexity: O(1).
    public static func bootstrap() -> TodoMetrics {
        let metrics = TodoMetrics()
        MetricsSystem.bootstrap(metrics.factory)
        return metrics
    }

    /// `GET /metrics`: every metric of ``registry`` in Prometheus' text exposition format (version 0.0.4).
    ///
    /// - Complexity: O(*m*) for *m* metrics.
    public func response() -> RESTResponse {
        var headers = HTTPFields()
        headers[.contentType] = "text/plain; version=0.0.4; charset=utf-8"
        headers[.cacheControl] = "no-store"
        return RESTResponse(status: .ok, headers: headers, body: Data(registry.emitToBuffer()))
    }
}
