import Foundation
import NIOConcurrencyHelpers
import LiveResultsPostgres
import LiveResultsTestSupport
import Logging
import PostgresNIO
import Testing

@Suite("PostgresClient.withTimeout: bounded waits")
struct TimeoutTests {
    @Test("An operation that ignores cancellation and never ends: timedOut at the bound, without waiting for it")
    func neverEnding() async throws {
        let client = PostgresClient(
            configuration: PostgresTestServer(host: "127.0.0.1", port: 1, username: "u", password: nil, database: "d")
                .configuration())
        let gate = NIOLockedValueBox<CheckedContinuation<Void, Never>?>(nil)
        let started = ContinuousClock.now
        await #expect(throws: PostgresLiveTableError.self) {
            try await client.withTimeout(.milliseconds(300)) { _ in
                // As postgres-nio's query on a connection the server closed: a wait no cancellation ends.
                await withCheckedContinuation { continuation in gate.withLockedValue { $0 = continuation } }
            }
        }
        // Generous: on a loaded machine the timer task itself can wait seconds for a thread.
        #expect(started.duration(to: .now) < .seconds(30))
        #expect(await eventually { gate.withLockedValue { $0 != nil } })
        gate.withLockedValue { $0.take() }?.resume()
    }

    /// How many restarts per shutdown mode: `LIVERESULTS_FAULT_RUNS`, 1 by default.
    static var runs: Int {
        ProcessInfo.processInfo.environment["LIVERESULTS_FAULT_RUNS"].flatMap { Int($0) } ?? 1
    }

    @Test(
        "A restart under three writers: every query ends within its timeout (postgres-nio leaves some pending)",
        arguments: TemporaryPostgres.ShutdownMode.allCases)
    func restartUnderWriters(mode: TemporaryPostgres.ShutdownMode) async throws {
        // A cluster of its own: restarting the shared one would break the other tests.
        let cluster = try TemporaryPostgres()
        defer { cluster.stop() }
        // Far longer than the restart takes (about a second): a query still pending then was left behind.
        let timeout: Duration = .seconds(6)
        try await PostgresTestServer.withClient(PostgresTestServer(cluster: cluster).configuration()) { client in
            try await client.query("CREATE TABLE writes (id bigserial PRIMARY KEY, value int NOT NULL)")
            for run in 1...Self.runs {
                let results = try await Self.write(client, timeout: timeout) {
                    try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
                        Thread.detachNewThread { continuation.resume(with: Result { try cluster.restart(mode: mode) }) }
                    }
                }
                let slowest = results.map(\.duration).max() ?? .zero
                #expect(slowest < timeout + .seconds(3), "run \(run) (\(mode)): slowest query: \(slowest)")
                // What postgres-nio left pending, for the record: the workaround is that they end here anyway.
                print(
                    "TimeoutTests: run \(run) (\(mode)): \(results.count) queries, "
                        + "\(results.filter(\.timedOut).count) still pending after \(timeout)")
            }
        }
    }

    /// Three writers insert in a loop, each query bounded by `timeout`; `fault` runs after a second, and the
    /// writers go on for three seconds after it.
    static func write(
        _ client: PostgresClient, timeout: Duration, fault: @escaping @Sendable () async throws -> Void
    ) async throws -> [(duration: Duration, timedOut: Bool)] {
        let done = NIOLockedValueBox(false)
        let results = NIOLockedValueBox<[(duration: Duration, timedOut: Bool)]>([])
        try await withThrowingTaskGroup(of: Void.self) { group in
            for writer in 0..<3 {
                group.addTask {
                    while !done.withLockedValue({ $0 }) {
                        let started = ContinuousClock.now
                        var timedOut = false
                        do {
                            _ = try await client.withTimeout(timeout) { client in
                                try await client.query("INSERT INTO writes (value) VALUES (\(writer))").collect()
                            }
                        } catch PostgresLiveTableError.timedOut {
                            timedOut = true
                        } catch {
                            // The restart's own failures: connections closed, the server shutting down.
                        }
                        let duration = started.duration(to: .now)
                        results.withLockedValue { $0.append((duration, timedOut)) }
                    }
                }
            }
            try await Task.sleep(for: .seconds(1))
            try await fault()
            try await Task.sleep(for: .seconds(3))
            done.withLockedValue { $0 = true }
            try await group.waitForAll()
        }
        return results.withLockedValue { $0 }
    }
}
