import Foundation
import LiveResults
import LiveResultsTestSupport
import LiveResultsWireSupport
import NIOConcurrencyHelpers
import NIOHTTP1
import PostgresNIO
import Testing
import TodoServer

/// The server example's process while its PostgreSQL restarts under writes: every request is answered
/// within the query timeout (a success, or `503` with `Retry-After`), and SIGTERM ends the process within
/// its shutdown deadline. The restarts need a cluster of this process's own (not LIVERESULTS_POSTGRES_URL).
///
/// `LIVERESULTS_FAULT_RUNS` sets the number of restarts per shutdown mode (2 by default).
@Suite("Database faults", .serialized, .timeLimit(.minutes(30)))
struct DatabaseFaultTests {
    /// The server's query timeout in these tests, and the margin a request is given beyond it.
    static let queryTimeout = 2
    static let margin: Duration = .seconds(6)
    static let shutdownTimeout = 4

    static var runs: Int {
        ProcessInfo.processInfo.environment["LIVERESULTS_FAULT_RUNS"].flatMap { Int($0) } ?? 2
    }

    @Test(
        "a restart under three writers leaves no request unanswered, and SIGTERM ends the server in time",
        arguments: ServerExecutable.allCases, TemporaryPostgres.ShutdownMode.allCases)
    func restartUnderWriters(executable: ServerExecutable, mode: TemporaryPostgres.ShutdownMode) async throws {
        let cluster = try TemporaryPostgres()
        defer { cluster.stop() }
        let url = "postgres://\(cluster.username):\(cluster.password)@\(cluster.host):\(cluster.port)/postgres"
        for run in 1...Self.runs {
            let server = try await ServerProcess(
                [
                    "--postgres", url, "--query-timeout", "\(Self.queryTimeout)", "--shutdown-timeout",
                    "\(Self.shutdownTimeout)",
                ], executable: executable)
            let outcomes = try await Self.write(to: server) {
                try await Self.inBackground { try cluster.restart(mode: mode) }
            }
            let late = outcomes.filter { $0.status == nil || $0.duration > .seconds(Self.queryTimeout) + Self.margin }
            #expect(
                late.isEmpty,
                "run \(run) (\(executable), \(mode)): unanswered or late: \(late.prefix(5)); \(server.printed)")
            let statuses = Set(outcomes.compactMap(\.status))
            let counts = Dictionary(outcomes.map { ($0.status ?? 0, 1) }, uniquingKeysWith: +)
            let timeouts = server.printed.components(separatedBy: "did not answer within").count - 1
            print(
                "DatabaseFaultTests: run \(run) (\(executable), \(mode)): statuses \(counts), queries timed out: \(timeouts)"
            )
            #expect(
                statuses.isSubset(of: [200, 201, 503]), "run \(run) (\(executable), \(mode)): statuses \(statuses)")
            #expect(
                await eventually(timeout: .seconds(30)) {
                    (try? await HTTP.send(.POST, "\(server.base)/todos", json: Self.todo, timeout: .seconds(10)))?
                        .status == 201
                }, "run \(run) (\(executable), \(mode)): writes work again")
            let started = ContinuousClock.now
            let status = await server.terminate(within: .seconds(Self.shutdownTimeout) + Self.margin)
            #expect(status != nil, "run \(run) (\(executable), \(mode)): SIGTERM ended the server; \(server.printed)")
            #expect(started.duration(to: .now) < .seconds(Self.shutdownTimeout) + Self.margin)
        }
    }

    @Test(
        "a database down for 10 s under writes: every write answered, the outage told, the replicas equal the table",
        arguments: ServerExecutable.allCases)
    func outageUnderWriters(executable: ServerExecutable) async throws {
        let cluster = try TemporaryPostgres()
        defer { cluster.stop() }
        let url = "postgres://\(cluster.username):\(cluster.password)@\(cluster.host):\(cluster.port)/postgres"
        let server = try await ServerProcess(
            ["--postgres", url, "--query-timeout", "\(Self.queryTimeout)"], executable: executable)
        let follower = Follower(try await EventStream.open("\(server.base)/todos/events").updates)
        let statuses = Locked<[String]>([])
        let status = try await EventStream.open("\(server.base)/todos/events")
        let statusReader = Task {
            for try await event in status.events where event.name == "source" {
                statuses.withLockedValue { $0.append(event.data) }
            }
        }
        defer { statusReader.cancel() }
        let outcomes = try await Self.write(to: server) {
            async let outage: Void = Self.inBackground { try cluster.restart(mode: .fast, downtime: .seconds(10)) }
            // Within the outage, which has just begun, the server finds the database down; HEAD, as load
            // balancers probe health, gets GET's status and headers.
            var health: HTTP.Reply?
            var head: HTTP.Reply?
            let down = await eventually(timeout: .seconds(8)) {
                health = try? await HTTP.send(
                    .GET, "\(server.base)/health", timeout: .seconds(Self.queryTimeout) + Self.margin)
                head = try? await HTTP.send(
                    .HEAD, "\(server.base)/health", timeout: .seconds(Self.queryTimeout) + Self.margin)
                return health?.status == 503 && head?.status == 503
            }
            #expect(
                down,
                """
                while the database is down: GET /health \(health.map { "\($0.status)" } ?? "no answer"), \
                HEAD /health \(head.map { "\($0.status)" } ?? "no answer")
                """)
            #expect(health?.error?.hasPrefix("the database is unavailable (") == true, "\(health?.text ?? "")")
            #expect(head?.header("Retry-After") != nil && head?.header("Retry-After") == health?.header("Retry-After"))
            #expect(head?.header("Content-Type") == health?.header("Content-Type"))
            try await outage
        }
        let late = outcomes.filter { $0.status == nil || $0.duration > .seconds(Self.queryTimeout) + Self.margin }
        #expect(late.isEmpty, "unanswered or late: \(late.prefix(5))")
        #expect(outcomes.contains { $0.status == 503 }, "the outage was seen")
        let table = try await PostgresTestServer.withClient(PostgresTestServer(cluster: cluster).configuration()) {
            try await ProcessTests.select($0)
        }
        #expect(await eventually(timeout: .seconds(60)) { Array(follower.replica.fetchedObjects) == table })
        // The stream told its clients that the database was lost, then back.
        #expect(
            await eventually(timeout: .seconds(30)) {
                statuses.value == [#"{"available":false}"#, #"{"available":true}"#]
            }, "source events: \(statuses.value)")
        #expect(await server.terminate() == 0)
    }

    /// One request: its status (`nil` when it got no answer in time) and how long it took.
    struct Outcome: Sendable, CustomStringConvertible {
        var status: Int?
        var duration: Duration
        var description: String { "\(status.map(String.init) ?? "no answer") after \(duration)" }
    }

    static let todo = #"{"title": "t", "project": "Faults", "priority": 1}"#

    /// Three writers POST and PATCH in a loop; `fault` runs once they have created three to-dos, and the writers
    /// go on until three more writes have succeeded after it: the fault hit writes under way, which recovered.
    static func write(
        to server: ServerProcess, fault: @escaping @Sendable () async throws -> Void
    ) async throws -> [Outcome] {
        let outcomes = Locked<[Outcome]>([])
        let done = Locked(false)
        try await withThrowingTaskGroup(of: Void.self) { group in
            for _ in 0..<3 {
                group.addTask {
                    var id: Int64?
                    while !done.value {
                        let started = ContinuousClock.now
                        let reply =
                            if let id {
                                try? await HTTP.send(
                                    .PATCH, "\(server.base)/todos/\(id)", json: #"{"priority": 2}"#,
                                    timeout: .seconds(queryTimeout) + margin)
                            } else {
                                try? await HTTP.send(
                                    .POST, "\(server.base)/todos", json: todo, timeout: .seconds(queryTimeout) + margin)
                            }
                        outcomes.withLockedValue {
                            $0.append(Outcome(status: reply?.status, duration: started.duration(to: .now)))
                        }
                        if reply?.status == 503 { #expect(reply?.headers.first(name: "Retry-After") != nil) }
                        id = reply?.status == 201 ? (try? reply?.decode(Todo.self))?.id : id
                    }
                }
            }
            func succeeded(since start: Int) -> Int {
                outcomes.value.dropFirst(start).count { [200, 201].contains($0.status) }
            }
            #expect(await eventually(timeout: .seconds(30)) { succeeded(since: 0) >= 3 }, "writes before the fault")
            try await fault()
            let faultEnded = outcomes.value.count
            #expect(
                await eventually(timeout: .seconds(30)) { succeeded(since: faultEnded) >= 3 }, "writes after the fault")
            done.withLockedValue { $0 = true }
            try await group.waitForAll()
        }
        return outcomes.value
    }

    /// Runs blocking `work` (a `pg_ctl` run) on a thread of its own, not one of the few cooperative ones.
    static func inBackground(_ work: @escaping @Sendable () throws -> Void) async throws {
        try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
            Thread.detachNewThread { continuation.resume(with: Result { try work() }) }
        }
    }
}
