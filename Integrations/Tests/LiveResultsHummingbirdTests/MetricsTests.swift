import Foundation
import LiveResultsServing
import LiveResultsTestSupport
import NIOHTTP1
import Testing
import TodoServer

/// `GET /metrics` of the server example: Prometheus' text format, with every name the routes report, and numbers
/// that move with the streams, the writes and the live queries; through the router with a registry of the test's
/// own, and from both executables, whose registry is swift-metrics' global backend.
@Suite("GET /metrics", .timeLimit(.minutes(5)))
struct MetricsTests {
    /// The names the live routes report, each of its type.
    static let routeMetrics = [
        "liveresults_streams_open": "gauge", "liveresults_streams_refused_total": "counter",
        "liveresults_updates_sent_total": "counter", "liveresults_update_bytes_sent_total": "counter",
        "liveresults_live_queries": "gauge", "liveresults_held_versions": "gauge",
        "liveresults_held_version_bytes": "gauge",
    ]

    /// `GET /metrics` of `server`, read.
    static func scrape(_ server: some TodoRequests) async throws -> PrometheusScrape {
        let reply = try await server.send(.GET, "/metrics")
        #expect(reply.status == 200)
        #expect(reply.header("Content-Type") == "text/plain; version=0.0.4; charset=utf-8")
        return try PrometheusScrape(String(decoding: reply.body, as: UTF8.self))
    }

    @Test("through the router: every name of its type; live queries counted as GETs make them")
    func router() async throws {
        var options = LiveResultsOptions()
        options.metricsSamplingInterval = .milliseconds(10)
        try await RoutedServer.with(try await MemoryTodoStore(), options: options, metrics: TodoMetrics()) { server in
            let scrape = try await Self.scrape(server)
            for (name, type) in Self.routeMetrics { #expect(scrape.types[name] == type, "\(name)") }
            #expect(scrape["liveresults_live_queries"] == 0)
            #expect(try await server.send(.GET, "/todos?project=eq.Home").status == 200)
            #expect(try await server.send(.GET, "/people?select=name,todos(title)").status == 200)
            // Each GET's query, live for its grace period: the two routes' sums add up.
            #expect(await eventually { (try? await Self.scrape(server)["liveresults_live_queries"]) == 2 })
        }
    }

    @Test(
        "from the executable: a stream open, its updates and their bytes, live queries and versions held",
        arguments: ServerExecutable.allCases)
    func executable(_ executable: ServerExecutable) async throws {
        let server = try await ServerProcess(executable: executable)
        var scrape = try await Self.scrape(server)
        for (name, type) in Self.routeMetrics { #expect(scrape.types[name] == type, "\(executable) \(name)") }
        #expect(scrape["liveresults_streams_open"] == 0, "\(executable)")
        let stream = try await EventStream.open(server.base + "/todos/events?project=eq.Home&limit=20")
        var events = stream.events.makeAsyncIterator()
        _ = try await events.next()
        _ = try await HTTP.create(server, title: "Buy milk", project: "Home", priority: 1)
        _ = try await events.next()
        scrape = try await Self.scrape(server)
        #expect(scrape["liveresults_streams_open"] == 1, "\(executable)")
        #expect(scrape["liveresults_updates_sent_total"] == 2, "\(executable)")
        #expect((scrape["liveresults_update_bytes_sent_total"] ?? 0) > 100, "\(executable)")
        // Sampled every 5 seconds by default.
        #expect(
            await eventually {
                let scrape = try? await Self.scrape(server)
                return (scrape?["liveresults_live_queries"] ?? 0) >= 1
                    && (scrape?["liveresults_held_versions"] ?? 0) >= 2
                    && (scrape?["liveresults_held_version_bytes"] ?? 0) > 0
            }, "\(executable)")
        #expect(await server.terminate() == 0)
    }
}

extension ServerProcess: TodoRequests {
    func send(
        _ method: HTTPMethod, _ path: String, body: Data?, headers: [(String, String)]
    ) async throws -> HTTP.Reply {
        try await HTTP.send(method, base + path, body: body, headers: headers)
    }
}
