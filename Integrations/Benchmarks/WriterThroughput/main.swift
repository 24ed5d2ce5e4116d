// What a live source costs the writers of a table: pgbench's transactions per second with no live source, with
// the trigger and LISTEN (PostgresLiveTable's notifications), and with the write-ahead log (PostgresChangeFeed), read
// over SQL and as a replication stream.
//
//   swift run -c release --package-path Integrations WriterThroughput [--rows N] [--seconds S] [--rounds R] [--quick]
//   WriterThroughput --help     # every option (swift-argument-parser; a refused option exits 64)
//
// A temporary cluster of its own with `fsync` on (PostgreSQL's default durability, which the tests turn off),
// a table of N rows (100,000), pgbench updating one random row per transaction with 1 and then 8 clients for S
// seconds (20) each, the four modes alternating, R rounds (2). After each run with a live source, the
// controller that followed it must equal `SELECT`. `--quick` is the CI's smoke pass: 2,000 rows, 2 s, 1 round.
//
//   WriterThroughput --server PATH/TO/LiveResultsServer [--only none,pg_recvlogical,wal,wal-sql,notify] [--clients C]
//       [--processes 1,2,4] [--rows N] [--seconds S] [--rounds R] [--quick]
//
// The server mode: what following the table costs the server example, against PostgreSQL's own client of the
// replication protocol, in one run. The server (a release build, for figures) creates its tables in a temporary
// cluster with fsync on, this tool fills `todos` with N rows (100,000), then pgbench updates one random row's
// priority per transaction with C clients (8) for S seconds (20) with, in turn: no follower; `pg_recvlogical`
// (pgoutput, proto_version 1, a publication of `todos`, to /dev/null), the anchor; the server as a child process
// with `--changes wal` (the replication stream), `wal-sql` (the same log over SQL) and `notify` (the trigger and
// LISTEN), each with one client streaming the whole table as its window (`GET /todos/events?limit=N`, counted,
// not decoded). Over pgbench's run only, it reads pgbench's transactions (the changes: a row each) and the
// database's committed ones (`xact_commit`), the follower's CPU time (`/proc/PID/stat`), that of its walsender
// (its backends are found by their client ports, listed every 200 ms; with `wal-sql`, all of them: the pool's
// connections take turns reading the slot) and of all its backends, and prints per change: the follower's and the
// walsender's CPU, pgbench's TPS against no follower and against pg_recvlogical in the same round. After each
// server run, the server's rows (a `GET /todos?select=id,priority` of the stream's live query)
// must have the table's count and checksums. The server's pid is printed, for `perf record -p`.
//
// `--processes 1,2,4` runs the `wal` follower once per count, with that many server processes at once on the
// database (each its own slot, walsender and stream client), and prints a table per count: the TPS, the servers' CPU
// per change (their sum and each's), their walsenders' (summed), and the most slots and walsenders in use at once
// (`pg_replication_slots`, `pg_stat_replication`, sampled every 200 ms during pgbench). Every process's rows must
// equal the table's. The cluster's `max_wal_senders` and `max_replication_slots` are 2 × the largest count + 1 (see
// `ServerRun.replicationSettings`).
import ArgumentParser
import Foundation
import LiveResults
import LiveResultsPostgres
import PostgresNIO
import LiveResultsTestSupport

#if canImport(Glibc)
    import Glibc
#endif

struct Item: FetchableEntity, Codable, Equatable {
    var id: Int64
    var title: String
    var priority: Int
}

enum Mode: String, CaseIterable {
    case none = "no live source"
    case notify = "trigger + LISTEN"
    case wal = "WAL feed, SQL"
    case stream = "WAL feed, stream"
}

/// Runs pgbench: `update` of a random row (`:id`, from 1 to `rows`) per transaction by `clients` clients for
/// `seconds`; returns its TPS and the transactions it counted.
///
/// Through `TemporaryPostgres.run`, which starts it with an empty signal mask: pgbench ends a `-T` run on
/// `SIGALRM`, which this process's threads block (with `Foundation.Process`, pgbench never stopped).
func pgbench(
    _ server: PostgresTestServer, database: String, clients: Int, seconds: Int, rows: Int, update: String
) throws -> (tps: Double, transactions: Int) {
    guard let bin = TemporaryPostgres.binDirectory() else {
        throw TemporaryPostgres.Failure(description: TemporaryPostgres.installHint)
    }
    let script = FileManager.default.temporaryDirectory.appendingPathComponent("liveresults-writers-\(getpid()).sql")
    try """
    \\set id random(1, \(rows))
    \(update);

    """.write(to: script, atomically: true, encoding: .utf8)
    defer { try? FileManager.default.removeItem(at: script) }
    let text = try TemporaryPostgres.run(
        "\(bin)/pgbench",
        [
            "-n", "-h", server.host, "-p", "\(server.port)", "-U", server.username, "-c", "\(clients)",
            "-j", "\(min(clients, 2))", "-T", "\(seconds)", "-f", script.path, database,
        ],
        environment: ["PGPASSWORD=\(server.password ?? "")", "PATH=/usr/bin:/bin"])
    guard let line = text.split(separator: "\n").first(where: { $0.hasPrefix("tps = ") }),
        let tps = Double(line.dropFirst("tps = ".count).prefix { $0.isNumber || $0 == "." })
    else { throw TemporaryPostgres.Failure(description: "pgbench printed no rate: \(text)") }
    let processed = "number of transactions actually processed: "
    let transactions = text.split(separator: "\n").first { $0.hasPrefix(processed) }.flatMap {
        Int($0.dropFirst(processed.count).prefix { $0.isNumber })
    }
    return (tps, transactions ?? 0)
}

/// This process's CPU time, in seconds.
func processCPUSeconds() -> Double {
    var usage = rusage()
    getrusage(RUSAGE_SELF.rawValue, &usage)
    return Double(usage.ru_utime.tv_sec + usage.ru_stime.tv_sec)
        + Double(usage.ru_utime.tv_usec + usage.ru_stime.tv_usec) / 1e6
}

/// What a run measured: pgbench's TPS, and the CPU time per second of this process (the controller and the
/// source), of the whole server, and of the feed's backend (the one decoding the log; 0 without the feed).
struct Measurement {
    var tps: Double
    var process: Double
    var server: Double
    var feedBackend: Double
}

/// The table's rows, ordered by id.
func select(_ client: PostgresClient) async throws -> [Item] {
    var items: [Item] = []
    let rows = try await client.query("SELECT id, title, priority FROM items ORDER BY id")
    for try await (id, title, priority) in rows.decode((Int64, String, Int).self) {
        items.append(Item(id: id, title: title, priority: priority))
    }
    return items
}

/// Runs pgbench in `mode`; returns its TPS and the CPU it took, after checking that a controller that followed it
/// equals `SELECT`.
func run(
    _ mode: Mode, clients: Int, cluster: TemporaryPostgres, server: PostgresTestServer, database: String,
    configuration: PostgresClient.Configuration, client: PostgresClient, options: Options
) async throws -> Measurement {
    let notifications = PostgresLiveTable<Item>(client: client, table: "items")
    let feed = PostgresChangeFeed(
        client: client, publication: "writer_throughput",
        transport: mode == .stream
            ? .replicationProtocol(PostgresTestServer.connectionConfiguration(configuration)) : .sqlFunctions)
    let table: PostgresLiveTable<Item>?
    switch mode {
    case .none: table = nil
    case .notify:
        try await notifications.installTrigger()
        table = notifications
    case .wal, .stream:
        try await feed.setUp(tables: ["items"])
        table = PostgresLiveTable<Item>(client: client, table: "items", changes: .replication(feed))
    }
    var controller: FetchedResultsController<Item>?
    var subscription: EventSubscription?
    if let table {
        let live = FetchedResultsController(
            definition: table.fetchDefinition(), sortDescriptors: [SortDescriptor(\Item.id)])
        subscription = live.observe(table)
        try await live.performFetch()
        controller = live
    }
    // The feed's backend: the connection whose last query was the feed's (it reads every few milliseconds), or
    // the stream's walsender.
    var feedBackend: Int32?
    if mode == .wal || mode == .stream {
        feedBackend = try await client.query(
            """
            SELECT pid FROM pg_stat_activity WHERE datname = current_database() AND pid <> pg_backend_pid()
            AND (query LIKE '%pg_replication_slot%' OR backend_type = 'walsender')
            ORDER BY (backend_type = 'walsender') DESC
            """
        ).collect().first?.decode(Int32.self)
    }
    let before = (
        process: processCPUSeconds(), server: cluster.cpuSeconds ?? 0,
        feed: feedBackend.flatMap(TemporaryPostgres.cpuSeconds(ofProcess:)) ?? 0
    )
    let clock = ContinuousClock.now
    let tps = try await Task.detached {
        try pgbench(
            server, database: database, clients: clients, seconds: options.seconds, rows: options.rows,
            update: "UPDATE items SET priority = priority + 1 WHERE id = :id"
        ).tps
    }.value
    let seconds = (ContinuousClock.now - clock) / .seconds(1)
    let measurement = Measurement(
        tps: tps, process: (processCPUSeconds() - before.process) / seconds,
        server: ((cluster.cpuSeconds ?? 0) - before.server) / seconds,
        feedBackend: ((feedBackend.flatMap(TemporaryPostgres.cpuSeconds(ofProcess:)) ?? 0) - before.feed) / seconds)
    if let controller {
        var equal = false
        for _ in 0..<240 where !equal {
            equal = try await Array(controller.fetchedObjects) == select(client)
            if !equal { try await Task.sleep(for: .milliseconds(250)) }
        }
        guard equal else {
            throw TemporaryPostgres.Failure(description: "\(mode.rawValue): the controller does not equal SELECT")
        }
    }
    subscription?.cancel()
    switch mode {
    case .none: break
    case .notify: try await notifications.removeTrigger()
    case .wal, .stream:
        // The temporary slot is dropped once the feed stops; the next run should not pay for it.
        for _ in 0..<100 {
            let slots = try await client.query("SELECT count(*)::int FROM pg_replication_slots").collect().first?
                .decode(Int.self)
            if slots == 0 { break }
            try await Task.sleep(for: .milliseconds(100))
        }
    }
    return measurement
}

/// Runs pgbench in every mode, with 1 and then 8 clients, `options.rounds` times, and prints the table.
func runModes(_ options: Options) async throws {
    let cluster = try TemporaryPostgres(settings: TemporaryPostgres.durableSettings)
    defer { cluster.stop() }
    let server = PostgresTestServer(cluster: cluster)
    print("PostgreSQL at \(server.host):\(server.port), fsync on; \(options.rows) rows, \(options.seconds) s per run")
    try await server.withDatabase { client, configuration in
        try await client.query(
            "CREATE TABLE items (id bigint PRIMARY KEY, title text NOT NULL, priority int NOT NULL)")
        try await client.query(
            "INSERT INTO items SELECT i, 'item ' || i, 0 FROM generate_series(1, \(options.rows)) i")
        try await client.query("VACUUM ANALYZE items")
        let database = configuration.database ?? "postgres"
        var results: [String: [Measurement]] = [:]
        for round in 1...options.rounds {
            for clients in [1, 8] {
                for mode in Mode.allCases {
                    let measured = try await run(
                        mode, clients: clients, cluster: cluster, server: server, database: database,
                        configuration: configuration, client: client, options: options)
                    results["\(mode.rawValue)|\(clients)", default: []].append(measured)
                    let tps = String(
                        format: "round %d, %d client(s), %@: %.0f TPS", round, clients, mode.rawValue, measured.tps)
                    let cpu = String(
                        format: "process %.3f, server %.3f, feed's backend %.3f", measured.process, measured.server,
                        measured.feedBackend)
                    print("\(tps); CPU s/s: \(cpu)")
                }
            }
        }
        // Each mode against the run without a source of the same round: the disk's speed moves between rounds.
        print(
            "\n| mode | clients | TPS (each round) | × no live source (each round) | CPU s/s: process; server; feed |")
        print("|---|---|---|---|---|")
        for clients in [1, 8] {
            let baseline = results["\(Mode.none.rawValue)|\(clients)"] ?? []
            for mode in Mode.allCases {
                let runs = results["\(mode.rawValue)|\(clients)"] ?? []
                let each = runs.map { String(format: "%.0f", $0.tps) }.joined(separator: ", ")
                let ratios = zip(runs, baseline).map { String(format: "%.2f", $0.tps / $1.tps) }.joined(separator: ", ")
                let count = Double(max(runs.count, 1))
                let cpu = String(
                    format: "%.3f; %.3f; %.3f", runs.map(\.process).reduce(0, +) / count,
                    runs.map(\.server).reduce(0, +) / count, runs.map(\.feedBackend).reduce(0, +) / count)
                print("| \(mode.rawValue) | \(clients) | \(each) | \(ratios) | \(cpu) |")
            }
        }
    }
}

let options = Options.parseOrExit()
do {
    if let serverPath = options.server {
        try await runServerMode(options, serverPath: serverPath)
    } else {
        try await runModes(options)
    }
    exit(0)
} catch {
    // Not thrown from the top level, which traps: exit runs the handlers that stop the children and the cluster.
    print("WriterThroughput: \(error)")
    exit(1)
}
