import LiveResultsPostgres
import LiveResultsTestSupport
import MetricsTestKit
import PostgresNIO
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
            // Every value the gauges are given, not samples of them: a read can pass between two samples.
            let metrics = TestMetrics()
            let feed = PostgresChangeFeed(
                client: client, publication: "liveresults", transport: read.transport(configuration),
                metricsFactory: metrics)
            let live = try await FeedTodos(client: client, feed: feed)
            defer { live.cancel() }
            for index in 0..<20 {
                try await client.query(
                    "INSERT INTO todos (title, project, priority) VALUES (\("t\(index)"), 'A', \(index % 3))")
            }
            #expect(await eventually { live.shown.count == 30 })
            let bytes = try metrics.expectGauge("liveresults_feed_lag_bytes")
            let seconds = try metrics.expectGauge("liveresults_feed_lag_seconds")
            // Over SQL every step of the feed records the gauges. Two more steps: the feed found nothing since it
            // delivered the last insert, and it asks for the server's position at every step until it finds changes.
            let recorded = bytes.values.count
            if read == .sql { #expect(await eventually { bytes.values.count >= recorded + 2 }) }
            // A transaction of 20,000 rows (megabytes of log): while the feed reads it, it is behind the server.
            try await client.query(
                """
                INSERT INTO todos (title, project, priority)
                SELECT 'bulk ' || n, 'B', n % 5 FROM generate_series(1, 20000) AS n
                """)
            #expect(await eventually(timeout: .seconds(60)) { live.shown.count == 20_030 })
            // So over SQL the step that finds the transaction learned a position past its commit before reading it;
            // a stream learns the position once a second, which this transaction may take less than to arrive.
            if read == .sql { #expect((bytes.values.max() ?? 0) > 0) }
            // Idle, the feed applies up to the server's position: over SQL at its next read, as a stream at the
            // keepalive it asks for after 5 seconds of silence.
            #expect(await eventually { bytes.lastValue == 0 && seconds.lastValue == 0 })
        }
    }
}
