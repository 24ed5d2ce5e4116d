// Commit-to-delivered latency of LISTEN/NOTIFY through PostgresLiveTable, against polling with a refetch
// every second, on the same table under the same writes, in one run.
//
//   swift run -c release --package-path Integrations PostgresLatency [--rows N] [--rate W] [--seconds S]
//       [--changes notify|wal|stream] [--clients C] [--fsync on|off] [--idle S]
//
// A table of N rows (100,000) is followed by a FetchedResultsController; pgbench, a second process on a
// second connection, updates random rows at W writes per second (500) for S seconds (30), each write
// stamping the row with the server's clock_timestamp(). The latency of a write is the time from that stamp
// to the change set that shows it (same host, same clock). The process's CPU time is read with getrusage.
// `--changes wal` follows the table through the write-ahead log (PostgresChangeFeed) read over SQL instead of
// LISTEN/NOTIFY, `--changes stream` through the same feed reading a replication stream.
// `--clients C` runs pgbench with C connections (2); `--fsync on` starts the temporary cluster with PostgreSQL's
// durability (the tests' cluster runs with fsync off); `--idle S` first measures the CPU of the process and of the
// server (a temporary cluster's) for S seconds with the source followed and no writes; `--maximum-read-interval MS`
// sets the feed's longest wait between reads (PostgresChangeFeed's default, 1 s).
// Uses LIVERESULTS_POSTGRES_URL, else a temporary cluster on a loopback port. `--help` lists the options.
import ArgumentParser
import Foundation
import LiveResults
import LiveResultsPostgres
import PostgresNIO
import LiveResultsTestSupport
import NIOConcurrencyHelpers

#if canImport(Glibc)
    import Glibc
#endif

struct Item: FetchableEntity, Codable {
    var id: Int64
    var title: String
    var project: String
    var priority: Int
    var written_at: Double
}

/// The command line, read with swift-argument-parser (`--help` lists it; a bad value exits with status 64).
struct Options: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "PostgresLatency",
        abstract: "Commit-to-delivered latency of a PostgreSQL live table, against polling with a refetch each second.")

    /// How the table is followed.
    enum Changes: String, ExpressibleByArgument, CaseIterable {
        /// The trigger and `LISTEN`/`NOTIFY`.
        case notify
        /// The write-ahead log, through `PostgresChangeFeed` read over SQL.
        case wal
        /// The same feed, reading a replication stream.
        case stream
    }

    /// On or off.
    enum Switch: String, ExpressibleByArgument, CaseIterable {
        case on, off
    }

    @Option(help: "Rows in the table.")
    var rows = 100_000
    @Option(help: ArgumentHelp("Writes per second, by pgbench.", valueName: "writes-per-second"))
    var rate = 500
    @Option(help: "Seconds of writes.")
    var seconds = 30
    @Option(help: "How the table is followed: LISTEN/NOTIFY, the WAL feed over SQL, or as a replication stream.")
    var changes = Changes.notify
    @Option(help: "pgbench's connections.")
    var clients = 2
    @Option(
        name: .customLong("fsync"),
        help: "on starts the temporary cluster with PostgreSQL's durability (the tests' cluster runs with it off).")
    var fsyncSwitch = Switch.off
    @Option(help: "First measure the CPU for this many seconds with the source followed and no writes (0: not).")
    var idle = 0
    @Option(
        help: ArgumentHelp(
            "The feed's longest wait between reads, at least 20 (PostgresChangeFeed's default, 1 s).",
            valueName: "milliseconds"))
    var maximumReadInterval: Int?

    var fsync: Bool { fsyncSwitch == .on }

    func validate() throws {
        if clients < 1 { throw ValidationError("--clients wants a whole number above 0, not \(clients)") }
        if let maximumReadInterval, maximumReadInterval < 20 {
            throw ValidationError("--maximum-read-interval wants 20 milliseconds or more, not \(maximumReadInterval)")
        }
    }
}

/// The delays from each write's stamp to the change set that showed it, with the write's time since the start.
final class Deliveries: Sendable {
    private let state = NIOLockedValueBox<(since: Double, delays: [(at: Double, delay: Double)], changeSets: Int)>(
        (.infinity, [], 0))

    func start(at since: Double) { state.withLockedValue { $0 = (since, [], 0) } }

    func record(_ changes: ChangeSet<Item>, _ snapshot: FetchedResultsSnapshot<Item>) {
        let now = Date().timeIntervalSince1970
        let paths = changes.updatedItems + changes.insertedItems
        state.withLockedValue { state in
            state.changeSets += 1
            for path in paths {
                let item = snapshot.object(at: path)
                if item.written_at >= state.since {
                    state.delays.append((item.written_at - state.since, now - item.written_at))
                }
            }
        }
    }

    var result: (delays: [(at: Double, delay: Double)], changeSets: Int) {
        state.withLockedValue { ($0.delays, $0.changeSets) }
    }
}

func cpuSeconds() -> Double {
    var usage = rusage()
    getrusage(RUSAGE_SELF.rawValue, &usage)
    return Double(usage.ru_utime.tv_sec + usage.ru_stime.tv_sec)
        + Double(usage.ru_utime.tv_usec + usage.ru_stime.tv_usec) / 1e6
}

func percentile(_ sorted: [Double], _ fraction: Double) -> Double {
    guard !sorted.isEmpty else { return .nan }
    return sorted[min(sorted.count - 1, Int((Double(sorted.count) * fraction).rounded(.down)))]
}

func milliseconds(_ seconds: Double) -> String { String(format: "%.1f ms", seconds * 1000) }

/// Runs pgbench: `rate` updates per second of random rows for `seconds`, on its own connections.
func runWriter(_ server: PostgresTestServer, database: String, options: Options) throws -> String {
    guard let bin = TemporaryPostgres.binDirectory() else {
        throw TemporaryPostgres.Failure(description: TemporaryPostgres.installHint)
    }
    let script = FileManager.default.temporaryDirectory.appendingPathComponent("liveresults-latency-\(getpid()).sql")
    try """
    \\set id random(1, \(options.rows))
    UPDATE items SET priority = (priority + 1) % 10, written_at = extract(epoch FROM clock_timestamp()) WHERE id = :id;

    """.write(to: script, atomically: true, encoding: .utf8)
    defer { try? FileManager.default.removeItem(at: script) }
    let process = Process()
    process.executableURL = URL(fileURLWithPath: "\(bin)/pgbench")
    process.arguments = [
        "-n", "-h", server.host, "-p", "\(server.port)", "-U", server.username, "-c", "\(options.clients)",
        "-j", "\(min(options.clients, 2))",
        "-R", "\(options.rate)", "-T", "\(options.seconds)", "-f", script.path, database,
    ]
    var environment = ProcessInfo.processInfo.environment
    environment["PGPASSWORD"] = server.password ?? ""
    process.environment = environment
    let output = Pipe()
    process.standardOutput = output
    process.standardError = output
    try process.run()
    let data = output.fileHandleForReading.readDataToEndOfFile()
    process.waitUntilExit()
    let text = String(decoding: data, as: UTF8.self)
    guard process.terminationStatus == 0 else {
        throw TemporaryPostgres.Failure(description: "pgbench failed: \(text)")
    }
    return text
}

struct PhaseResult {
    var name: String
    var delays: [(at: Double, delay: Double)]
    var changeSets: Int
    var cpu: Double
    var seconds: Double
    var writes: String

    /// Also without the writes of the first second: the feed's waits grow while nothing is written (before the
    /// writer starts), so its first writes wait up to the feed's maximumReadInterval; the rest is the steady state.
    func print() {
        let sorted = delays.map(\.delay).sorted()
        let steady = delays.filter { $0.at >= 1 }.map(\.delay).sorted()
        Swift.print(
            """
            \(name):
              writes (pgbench): \(writes)
              change sets: \(changeSets), writes seen: \(delays.count)
              commit-to-delivered: p50 \(milliseconds(percentile(sorted, 0.5))), \
            p99 \(milliseconds(percentile(sorted, 0.99))), max \(milliseconds(sorted.last ?? .nan))
              after the first second: p50 \(milliseconds(percentile(steady, 0.5))), \
            p99 \(milliseconds(percentile(steady, 0.99))), max \(milliseconds(steady.last ?? .nan))
              process CPU: \(String(format: "%.3f", cpu / seconds)) s per second (\(String(format: "%.1f", cpu)) s in \(String(format: "%.1f", seconds)) s)
            """)
    }
}

func phase(
    _ name: String, server: PostgresTestServer, database: String, options: Options,
    controller: FetchedResultsController<Item>
) async throws -> PhaseResult {
    let deliveries = Deliveries()
    let (_, observation) = controller.observeChanges { deliveries.record($0, $1) }
    defer { observation.cancel() }
    let start = Date().timeIntervalSince1970
    deliveries.start(at: start)
    let cpuBefore = cpuSeconds()
    let clock = ContinuousClock.now
    let writer = Task.detached { try runWriter(server, database: database, options: options) }
    let output = try await writer.value
    // CPU while the writes run; then the deliveries of the last writes (a poll period and a fetch later).
    let elapsed = ContinuousClock.now - clock
    let cpu = cpuSeconds() - cpuBefore
    try await Task.sleep(for: .seconds(2))
    let seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
    let tps = output.split(separator: "\n").first { $0.hasPrefix("tps") }.map(String.init) ?? "?"
    let latency =
        output.split(separator: "\n").first { $0.hasPrefix("number of transactions actually processed") }
        .map(String.init) ?? ""
    let (delays, changeSets) = deliveries.result
    return PhaseResult(
        name: name, delays: delays, changeSets: changeSets, cpu: cpu, seconds: seconds,
        writes: "\(latency.replacingOccurrences(of: "number of transactions actually processed: ", with: "")) \(tps)")
}

let options = Options.parseOrExit()
let server = try options.fsync ? PostgresTestServer.durable() : PostgresTestServer.shared()
print(
    """
    PostgreSQL at \(server.host):\(server.port)\(options.fsync ? " (fsync on)" : ""); \(options.rows) rows, \
    \(options.rate) writes/s by \(options.clients) clients for \(options.seconds) s
    """
)
try await server.withDatabase { client, configuration in
    try await client.query(
        """
        CREATE TABLE items (id bigint PRIMARY KEY, title text NOT NULL, project text NOT NULL, priority int NOT NULL,
        written_at double precision NOT NULL)
        """)
    try await client.query(
        """
        INSERT INTO items SELECT i, 'item ' || i, 'project ' || (i % 10), i % 10, 0
        FROM generate_series(1, \(options.rows)) i
        """)
    try await client.query("VACUUM ANALYZE items")
    let database = configuration.database ?? "postgres"
    let table = PostgresLiveTable<Item>(client: client, table: "items")
    // The trigger only when it is followed: with the feed, writers would pay for notifications nobody reads.
    if options.changes == .notify { try await table.installTrigger() }
    let feed = PostgresChangeFeed(
        client: client, publication: "latency",
        transport: options.changes == .stream
            ? .replicationProtocol(PostgresTestServer.connectionConfiguration(configuration)) : .sqlFunctions,
        maximumReadInterval: options.maximumReadInterval.map { .milliseconds($0) } ?? .seconds(1))
    if options.changes != .notify { try await feed.setUp(tables: ["items"]) }
    let followed =
        options.changes != .notify
        ? PostgresLiveTable<Item>(client: client, table: "items", changes: .replication(feed)) : table
    let source =
        switch options.changes {
        case .wal: "the WAL feed (PostgresChangeFeed) over SQL"
        case .stream: "the WAL feed (PostgresChangeFeed) as a replication stream"
        case .notify: "LISTEN/NOTIFY (PostgresLiveTable)"
        }

    let sort = [SortDescriptor(\Item.priority), SortDescriptor(\Item.id)]

    // LISTEN/NOTIFY through PostgresLiveTable, or the WAL feed.
    let live = FetchedResultsController(
        definition: followed.fetchDefinition(), sortDescriptors: sort, sectionNameKeyPath: \Item.project)
    let subscription = live.observe(followed)
    let fetchStart = ContinuousClock.now
    try await live.performFetch()
    print("first fetch of \(live.fetchedObjects.count) rows: \(ContinuousClock.now - fetchStart)")
    if options.idle > 0 {
        // The waits between reads grow while nothing is written: the measure starts once they have.
        try await Task.sleep(for: .seconds(3))
        let serverBefore = server.cluster?.cpuSeconds
        let before = cpuSeconds()
        try await Task.sleep(for: .seconds(options.idle))
        let cpu = cpuSeconds() - before
        print(
            String(
                format: "idle, no writes: process CPU %.4f s per second (%.3f s in %d s), %.2f %% of a core",
                cpu / Double(options.idle), cpu, options.idle, 100 * cpu / Double(options.idle)))
        if let serverBefore, let serverAfter = server.cluster?.cpuSeconds {
            let serverCPU = serverAfter - serverBefore
            print(
                String(
                    format: "idle, no writes: server CPU (all its processes) %.4f s per second, %.2f %% of a core",
                    serverCPU / Double(options.idle), 100 * serverCPU / Double(options.idle)))
        }
    }
    let listening = try await phase(source, server: server, database: database, options: options, controller: live)
    subscription.cancel()
    _ = live.reset()

    // Polling: a refetch every second, as without LiveResults' events.
    let polled = FetchedResultsController(
        definition: table.fetchDefinition(), sortDescriptors: sort, sectionNameKeyPath: \Item.project)
    try await polled.performFetch()
    let polling = polled.poll(every: .seconds(1))
    let polls = try await phase(
        "poll(every: 1 s) with a refetch", server: server, database: database, options: options, controller: polled)
    polling.cancel()

    print()
    listening.print()
    polls.print()
    let ratio = (listening.cpu / listening.seconds) / (polls.cpu / polls.seconds)
    print(
        String(format: "%@ CPU / polling CPU: %.3f", options.changes == .notify ? "LISTEN/NOTIFY" : "WAL feed", ratio))
}
