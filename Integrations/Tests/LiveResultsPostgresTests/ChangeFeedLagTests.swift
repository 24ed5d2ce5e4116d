import LiveResultsPostgres
import LiveResultsTestSupport
import PostgresNIO
import Prometheus
import Testing

/// The feed's lag gauges over a real server's write-ahead log, on a cluster of its own (another test's writes would
/// move the server's position): recorded as the feed reads, and back to 0 once it is idle.
@Suite("PostgresChangeFeed: its lag behind the server's log", .timeLimit(.minutes(3)))
struct ChangeFeedLagTests {
    @Test("the lag gauges are recorded as the feed reads, and are 0 once it caught up", arguments: FeedRead.allCases)
    func idle(read: FeedRead) async throws {
        let cluster = try TemporaryPostgres()
        defer { cluster.stop() }
        try await PostgresTestServer(cluster: cluster).withDatabase { client, configuration in
            try await createSeededTodos(client, count: 10)
            let registry = PrometheusCollectorRegistry()
            let feed = PostgresChangeFeed(
                client: client, publication: "liveresults", transport: read.transport(configuration),
                metricsFactory: PrometheusMetricsFactory(registry: registry))
            let live = try await FeedTodos(client: client, feed: feed)
            defer { live.cancel() }
            for index in 0..<20 {
                try await client.query(
                    "INSERT INTO todos (title, project, priority) VALUES (\("t\(index)"), 'A', \(index % 3))")
            }
            #expect(await eventually { live.shown.count == 30 })
            // A transaction of 20,000 rows (megabytes of log): while the feed reads it, it is behind the server.
            let watcher = Task {
                var most = 0.0
                while !Task.isCancelled {
                    let scrape = try? PrometheusScrape(registry.emitToString())
                    most = max(most, scrape?["liveresults_feed_lag_bytes"] ?? 0)
                    try? await Task.sleep(for: .milliseconds(2))
                }
                return most
            }
            try await client.query(
                """
                INSERT INTO todos (title, project, priority)
                SELECT 'bulk ' || n, 'B', n % 5 FROM generate_series(1, 20000) AS n
                """)
            #expect(await eventually(timeout: .seconds(60)) { live.shown.count == 20_030 })
            watcher.cancel()
            let most = await watcher.value
            // Over SQL the feed reads the server's position before it reads the slot, then the whole transaction;
            // a stream learns it once a second, which this transaction may take less than to arrive.
            if read == .sql { #expect(most > 0) }
            let scrape = try PrometheusScrape(registry.emitToString())
            #expect(scrape.types["liveresults_feed_lag_bytes"] == "gauge")
            #expect(scrape.types["liveresults_feed_lag_seconds"] == "gauge")
            // Idle, the feed applies up to the server's position: over SQL at its next read, as a stream at the
            // keepalive it asks for after 5 seconds of silence.
            #expect(
                await eventually {
                    let scrape = try? PrometheusScrape(registry.emitToString())
                    return scrape?["liveresults_feed_lag_bytes"] == 0 && scrape?["liveresults_feed_lag_seconds"] == 0
                })
        }
    }
}
