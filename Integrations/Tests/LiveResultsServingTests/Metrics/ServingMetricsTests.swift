import Foundation
import HTTPTypes
import LiveResults
import LiveResultsServing
import LiveResultsTestSupport
import NIOConcurrencyHelpers
import NIOCore
import Prometheus
import Testing

/// The routes' metrics, scraped from a Prometheus registry handed to them (never swift-metrics' global system): the
/// names, and that the numbers move with the streams, the updates, the refusals, the live queries and the versions
/// held.
@Suite("The routes' metrics", .timeLimit(.minutes(1)))
struct ServingMetricsTests {
    /// Options that report to `registry`, its gauges sampled every 10 milliseconds.
    static func options(_ registry: PrometheusCollectorRegistry, maximumStreams: Int = 1_000) -> LiveResultsOptions {
        LiveResultsOptions(
            maximumStreams: maximumStreams, metricsFactory: PrometheusMetricsFactory(registry: registry),
            metricsSamplingInterval: .milliseconds(10))
    }

    static func scrape(_ registry: PrometheusCollectorRegistry) throws -> PrometheusScrape {
        try PrometheusScrape(registry.emitToString())
    }

    /// A stream of `routes` whose chunks are recorded, run by a task until the endpoint shuts its streams.
    static func stream<Entity>(
        _ routes: _LiveRoutes<Entity>, query: String?
    ) async throws -> (chunks: NIOLockedValueBox<[ByteBuffer]>, body: Task<Void, any Error>) {
        let stream = try await routes.events(LiveResultsRequest(headers: [:], query: query), channel: nil)
        let chunks = NIOLockedValueBox<[ByteBuffer]>([])
        let body = Task { try await stream.body { chunk in chunks.withLockedValue { $0.append(chunk) } } }
        return (chunks, body)
    }

    @Test("every name, of its type; streams open up and down, updates and their bytes, refusals, held versions")
    func streams() async throws {
        let registry = PrometheusCollectorRegistry()
        let controller = try await LiveRoutesTests.controller()
        let routes = _LiveRoutes(controller: controller, options: Self.options(registry, maximumStreams: 1))
        let (chunks, body) = try await Self.stream(routes, query: "limit=2")
        // The retry: line and the whole window.
        #expect(await eventually { chunks.withLockedValue { $0.count } == 2 })
        var scrape = try Self.scrape(registry)
        let types = [
            "liveresults_streams_open": "gauge", "liveresults_streams_refused_total": "counter",
            "liveresults_updates_sent_total": "counter", "liveresults_update_bytes_sent_total": "counter",
            "liveresults_live_queries": "gauge", "liveresults_held_versions": "gauge",
            "liveresults_held_version_bytes": "gauge",
        ]
        for (name, type) in types { #expect(scrape.types[name] == type, "\(name)") }
        #expect(scrape["liveresults_streams_open"] == 1)
        #expect(scrape["liveresults_updates_sent_total"] == 1)
        let firstBytes = chunks.withLockedValue { $0[1].readableBytes }
        #expect(scrape["liveresults_update_bytes_sent_total"] == Double(firstBytes))
        #expect(scrape["liveresults_live_queries"] == 0)

        // One stream is the most: the next is refused, and counted.
        await #expect(throws: LiveResultsRefusal.self) {
            _ = try await routes.events(LiveResultsRequest(headers: [:], query: nil), channel: nil)
        }
        #expect(try Self.scrape(registry)["liveresults_streams_refused_total"] == 1)

        // An update the window shows: one more update, its bytes, and the window's versions held.
        controller.apply(.updated(Row(id: 1, title: "oat milk", project: "Home", priority: 1)))
        #expect(await eventually { chunks.withLockedValue { $0.count } == 3 })
        let allBytes = chunks.withLockedValue { $0[1...].reduce(0) { $0 + $1.readableBytes } }
        #expect(await eventually { (try? Self.scrape(registry)["liveresults_held_versions"]) == 2 })
        scrape = try Self.scrape(registry)
        #expect(scrape["liveresults_updates_sent_total"] == 2)
        #expect(scrape["liveresults_update_bytes_sent_total"] == Double(allBytes))
        #expect((scrape["liveresults_held_version_bytes"] ?? 0) > 0)

        await routes.endpoint.shutDownStreams()
        try await body.value
        #expect(try Self.scrape(registry)["liveresults_streams_open"] == 0)
    }

    @Test("live queries count as they are made; a WebSocket's updates count their messages' bytes")
    func liveQueries() async throws {
        let registry = PrometheusCollectorRegistry()
        let table = MemoryTable([Row(id: 1, title: "milk", project: "Home", priority: 1)])
        let route = _LiveQueryRoute(
            path: "rows", filters: ["project"], orders: ["id"], defaultOrder: [], sections: [], maximumLimit: 100,
            respondsItself: { _ in false })
        let routes = _LiveRoutes(
            registry: LiveQueryRegistry(source: table), route: route, options: Self.options(registry))
        _ = try await routes.results(LiveResultsRequest(headers: [:], query: "project=eq.Home"))
        _ = try await routes.results(LiveResultsRequest(headers: [:], query: "project=eq.Work"))
        #expect(await eventually { (try? Self.scrape(registry)["liveresults_live_queries"]) == 2 })

        var headers = HTTPFields()
        headers[.upgrade] = "websocket"
        let outbound = LiveRoutesTests.Outbound()
        let (inbound, client) = AsyncStream<Void>.makeStream()
        let served = Task {
            try await routes.serveWebSocket(
                LiveResultsRequest(headers: headers, query: "project=eq.Home&limit=10"), inbound: inbound,
                outbound: outbound)
        }
        #expect(await eventually { outbound.texts.withLockedValue { $0.count } == 1 })
        table.write([Row(id: 2, title: "bread", project: "Home", priority: 2)])
        #expect(await eventually { outbound.texts.withLockedValue { $0.count } == 2 })
        let bytes = outbound.texts.withLockedValue { $0.reduce(0) { $0 + $1.utf8.count } }
        let scrape = try Self.scrape(registry)
        #expect(scrape["liveresults_streams_open"] == 1)
        #expect(scrape["liveresults_updates_sent_total"] == 2)
        #expect(scrape["liveresults_update_bytes_sent_total"] == Double(bytes))
        #expect(await eventually { ((try? Self.scrape(registry)["liveresults_held_versions"]) ?? 0) >= 2 })
        client.yield()
        try await served.value
        #expect(try Self.scrape(registry)["liveresults_streams_open"] == 0)
    }

    @Test("the sampling ends with the routes, and takes back what they reported")
    func samplingEndsWithTheRoutes() async throws {
        let registry = PrometheusCollectorRegistry()
        let table = MemoryTable([Row(id: 1, title: "milk", project: "Home", priority: 1)])
        let route = _LiveQueryRoute(
            path: "rows", filters: ["project"], orders: ["id"], defaultOrder: [], sections: [], maximumLimit: 100,
            respondsItself: { _ in false })
        weak var endpoint: LiveResultsEndpoint?
        do {
            let routes = _LiveRoutes(
                registry: LiveQueryRegistry(source: table), route: route, options: Self.options(registry))
            endpoint = routes.endpoint
            _ = try await routes.results(LiveResultsRequest(headers: [:], query: "project=eq.Home"))
            #expect(await eventually { (try? Self.scrape(registry)["liveresults_live_queries"]) == 1 })
        }
        #expect(endpoint == nil)
        #expect(await eventually { (try? Self.scrape(registry)["liveresults_live_queries"]) == 0 })
    }
}
