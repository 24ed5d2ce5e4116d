import AsyncHTTPClient
import Foundation
import LiveResultsPostgres
import LiveResultsTestSupport
import NIOCore
import PostgresNIO

#if canImport(Glibc)
    import Glibc
#endif

/// What follows the table in a run of `--server`: nothing, `pg_recvlogical` (PostgreSQL's own client of the
/// replication protocol, the anchor), or the server example with one of its transports.
enum Follower: String, CaseIterable {
    case none
    case recvlogical = "pg_recvlogical"
    case stream = "wal"
    case sql = "wal-sql"
    case trigger = "notify"

    /// The row's name in the table.
    var label: String {
        switch self {
        case .none: "no follower"
        case .recvlogical: "pg_recvlogical"
        case .stream: "server, WAL stream (--changes wal)"
        case .sql: "server, WAL over SQL (--changes wal-sql)"
        case .trigger: "server, trigger (--changes notify)"
        }
    }

    /// The server's `--changes`, or `nil` when the server is not the follower.
    var changes: String? {
        switch self {
        case .none, .recvlogical: nil
        case .stream, .sql, .trigger: rawValue
        }
    }
}

/// What one run of `--server` measured, over pgbench's run only.
struct ServerMeasurement {
    var tps: Double
    /// The transactions pgbench reported.
    var transactions: Int
    /// The change in the database's `xact_commit`: pgbench's transactions, and those of the follower (with the
    /// trigger, the server fetches each notified row) and of this tool.
    var commits: Int
    /// The CPU seconds of the follower's process (the server, or `pg_recvlogical`), from pgbench's start until the
    /// follower is idle again.
    var follower: Double
    /// The part of `follower` spent while pgbench ran.
    var followerInRun: Double
    /// The seconds the follower stayed busy after pgbench ended (at least a second: two idle half-seconds).
    var catchUp: Double
    /// The CPU seconds, until the follower is idle, of the follower's walsender (with `wal-sql`, of all its backends: the pool's connections
    /// take turns reading the slot).
    var walsender: Double
    /// The CPU seconds of all the follower's backends, the walsender included.
    var backends: Double
    /// The CPU seconds of the whole cluster.
    var cluster: Double
    /// The events and bytes the stream client read during pgbench's run.
    var events: Int
    var bytes: Int

    /// `seconds` of CPU per followed change (a transaction of pgbench: one row updated), in microseconds.
    ///
    /// Not per `commits`: with the trigger, the server's fetch of each notified row commits a transaction too.
    func perChange(_ seconds: Double) -> Double { seconds / Double(max(transactions, 1)) * 1e6 }
}

/// `--server PATH`: the costs of following a table with the server example, against `pg_recvlogical` and against
/// nothing, in one run (see the top of `main.swift`).
struct ServerRun: Sendable {
    let options: Options
    let serverPath: String
    let postgres: PostgresTestServer
    let cluster: TemporaryPostgres
    let client: PostgresClient
    let database: String
    let http: HTTPClient

    /// The publication `pg_recvlogical` reads: the table alone, as the server's feed reads it.
    static let publication = "writer_throughput_todos"
    static let slot = "writer_throughput_recvlogical"

    /// Creates the server's tables by starting it once, then fills `todos` with `options.rows` rows.
    func prepare() async throws {
        let server = try await startServer(changes: "wal-sql")
        await server.stop()
        try await waitForNoSlots()
        try await client.query(
            """
            INSERT INTO todos (id, title, project, priority)
            SELECT i, 'todo ' || i, 'project ' || (i % 10), 0 FROM generate_series(1, \(options.rows)) i
            """)
        try await client.query("SELECT setval('todos_id_seq', \(options.rows))")
        try await client.query(PostgresQuery(unsafeSQL: "CREATE PUBLICATION \(Self.publication) FOR TABLE todos"))
        try await client.query("VACUUM ANALYZE todos")
    }

    /// Starts the server example on a port of its own on the database, with `--changes changes`; returns once it
    /// listens.
    func startServer(changes: String) async throws -> ChildProcess {
        let server = try ChildProcess(
            serverPath,
            [
                "--port", "0", "--postgres", postgres.url(database: database), "--changes", changes,
                "--maximum-limit", "\(options.rows)", "--query-timeout", "120", "--idle-timeout", "3600",
            ])
        do {
            // The store fetches the whole table before the server listens.
            _ = try await server.waitForOutput(matching: #"http://[^ ]+:[0-9]+/"#, within: .seconds(180))
        } catch {
            await server.stop()
            throw error
        }
        return server
    }

    /// The port the server printed that it listens on.
    func port(of server: ChildProcess) throws -> Int {
        let text = server.output
        guard let range = text.range(of: #":[0-9]+/"#, options: .regularExpression),
            let port = Int(text[range].dropFirst().dropLast())
        else { throw TemporaryPostgres.Failure(description: "no port in \(text)") }
        return port
    }

    /// Runs pgbench with `follower` following the table; after a run of the server, checks that the server's rows
    /// equal the table's.
    func run(_ follower: Follower) async throws -> ServerMeasurement {
        var process: ChildProcess?
        var stream: EventStreamClient?
        var base = ""
        do {
            switch follower {
            case .none: break
            case .recvlogical:
                guard let bin = TemporaryPostgres.binDirectory() else {
                    throw TemporaryPostgres.Failure(description: TemporaryPostgres.installHint)
                }
                // pgoutput, protocol 1, the table's publication: what the feed asks for; no fsync of /dev/null.
                process = try ChildProcess(
                    "\(bin)/pg_recvlogical",
                    [
                        "-h", postgres.host, "-p", "\(postgres.port)", "-U", postgres.username, "-d", database,
                        "--slot", Self.slot, "--create-slot", "--start", "-P", "pgoutput",
                        "-o", "proto_version=1", "-o", "publication_names=\(Self.publication)",
                        "-f", "/dev/null", "-F", "0",
                    ],
                    environment: ["PGPASSWORD=\(postgres.password ?? "")", "PATH=/usr/bin:/bin"])
            case .stream, .sql, .trigger:
                let server = try await startServer(changes: follower.rawValue)
                process = server
                base = "http://127.0.0.1:\(try port(of: server))"
                say("  the server's pid: \(server.pid)")
                let client = EventStreamClient(url: "\(base)/todos/events?limit=\(options.rows)", http: http)
                stream = client
                try await client.waitForFirstEvent(within: .seconds(120))
            }
            // The walsender of the stream or of pg_recvlogical must be there before the run starts, or its CPU would
            // not be counted. (With wal-sql, the server listens once its feed reads.)
            if let process, follower == .recvlogical || follower == .stream {
                try await waitForWalsender(of: process)
            }
            let before = try await readings(of: process)
            let counted = stream?.snapshot
            // The follower's backends are listed every 200 ms while pgbench runs: a stream that reconnects ends its
            // walsender and starts another, whose CPU would be missed by readings before and after alone.
            let sampler = Task { [self] in
                var seen: [Int32: (cpu: Double, walsender: Bool)] = [:]
                while !Task.isCancelled, let process {
                    for (pid, backend) in (try? await self.backends(of: process)) ?? [:] {
                        seen[pid] = (backend.cpu, backend.walsender || seen[pid]?.walsender == true)
                    }
                    try? await Task.sleep(for: .milliseconds(200))
                }
                return seen
            }
            let result: (tps: Double, transactions: Int)
            do {
                result = try await Task.detached { [options, postgres, database] in
                    try pgbench(
                        postgres, database: database, clients: options.serverClients, seconds: options.seconds,
                        rows: options.rows, update: "UPDATE todos SET priority = priority + 1 WHERE id = :id")
                }.value
            } catch {
                sampler.cancel()
                throw error
            }
            let window = try await readings(of: process)
            // A follower that lags behind the writers follows the run's changes after it too: its CPU (and its
            // walsender's) is counted until it is idle again.
            let clock = ContinuousClock.now
            try await waitUntilIdle(process)
            let catchUp = (ContinuousClock.now - clock) / .seconds(1)
            sampler.cancel()
            var after = try await readings(of: process)
            for (pid, backend) in await sampler.value where after.backends[pid] == nil {
                after.backends[pid] = backend
            }
            let streamed = stream?.snapshot
            if let failure = streamed?.failure {
                throw TemporaryPostgres.Failure(description: "the stream: \(failure)")
            }
            var backends = 0.0
            var walsender = 0.0
            var listed: [String] = []
            for (pid, backend) in after.backends.sorted(by: { $0.key < $1.key }) {
                let spent = backend.cpu - (before.backends[pid]?.cpu ?? 0)
                backends += spent
                // With wal-sql, the pool's connections take turns reading the slot: all of them are its reader.
                let reads = follower == .sql || backend.walsender || before.backends[pid]?.walsender == true
                if reads { walsender += spent }
                listed.append("\(pid)\(reads ? " (reads the log)" : "") \(String(format: "%.2f", spent)) s")
            }
            if let process {
                say("  its backends (CPU during the run): \(listed.joined(separator: ", "))")
                // What the server said of its change feed: a reconnection shows there.
                let feed = process.output.split(separator: "\n").filter { $0.contains("change feed") }
                if feed.count > 1 { say("  its feed: \(feed.suffix(6).joined(separator: "\n    "))") }
            }
            let measurement = ServerMeasurement(
                tps: result.tps, transactions: result.transactions, commits: Int(window.commits - before.commits),
                follower: after.process - before.process, followerInRun: window.process - before.process,
                catchUp: catchUp, walsender: walsender, backends: backends,
                cluster: after.cluster - before.cluster,
                events: (streamed?.events ?? 0) - (counted?.events ?? 0),
                bytes: (streamed?.bytes ?? 0) - (counted?.bytes ?? 0))
            if follower.changes != nil { try await checkRows(at: base, follower: follower) }
            await finish(follower, process: process, stream: stream)
            return measurement
        } catch {
            await finish(follower, process: process, stream: stream)
            throw error
        }
    }

    /// Stops what `run` started, and leaves the database as it found it: no slot, no trigger.
    private func finish(_ follower: Follower, process: ChildProcess?, stream: EventStreamClient?) async {
        await stream?.stop()
        await process?.stop()
        switch follower {
        case .none, .stream, .sql: break
        case .recvlogical:
            // The slot outlives pg_recvlogical; it is inactive once its walsender has ended.
            for _ in 0..<100 {
                let dropped = try? await client.query(
                    "SELECT pg_drop_replication_slot(slot_name) FROM pg_replication_slots WHERE NOT active"
                )
                .collect()
                if dropped != nil, (try? await slotCount()) == 0 { break }
                try? await Task.sleep(for: .milliseconds(100))
            }
        case .trigger:
            try? await PostgresLiveTable<Item>(client: client, table: "todos").removeTrigger()
            try? await PostgresLiveTable<Item>(client: client, table: "people").removeTrigger()
        }
        try? await waitForNoSlots()
    }

    private func slotCount() async throws -> Int {
        try await client.query("SELECT count(*)::int FROM pg_replication_slots").collect().first?.decode(Int.self)
            ?? 0
    }

    /// Waits until the temporary slot of a server that stopped is gone: the next run should not pay for it.
    private func waitForNoSlots() async throws {
        for _ in 0..<100 {
            if try await slotCount() == 0 { return }
            try await Task.sleep(for: .milliseconds(100))
        }
    }

    /// Waits until `process` and its backends have used less than 10 % of a core over two half-seconds in a row, for
    /// at most two minutes.
    private func waitUntilIdle(_ process: ChildProcess?) async throws {
        guard let process else { return }
        func busy() async throws -> Double {
            try await backends(of: process).values.reduce(TemporaryPostgres.cpuSeconds(ofProcess: process.pid) ?? 0) {
                $0 + $1.cpu
            }
        }
        var last = try await busy()
        var quiet = 0
        let deadline = ContinuousClock.now + .seconds(120)
        while quiet < 2, ContinuousClock.now < deadline {
            try await Task.sleep(for: .milliseconds(500))
            let now = try await busy()
            quiet = now - last < 0.05 ? quiet + 1 : 0
            last = now
        }
    }

    /// What is read before and after pgbench's run.
    struct Readings {
        var process = 0.0
        var cluster = 0.0
        var commits: Int64 = 0
        var backends: [Int32: (cpu: Double, walsender: Bool)] = [:]
    }

    private func readings(of process: ChildProcess?) async throws -> Readings {
        var readings = Readings()
        if let process {
            readings.process = TemporaryPostgres.cpuSeconds(ofProcess: process.pid) ?? 0
            readings.backends = try await backends(of: process)
        }
        readings.cluster = cluster.cpuSeconds ?? 0
        readings.commits =
            try await client.query(
                "SELECT xact_commit FROM pg_stat_database WHERE datname = current_database()"
            ).collect().first?.decode(Int64.self) ?? 0
        return readings
    }

    /// The backends of `process`'s connections (found by their client ports), their CPU, and whether each is a
    /// walsender.
    private func backends(of process: ChildProcess) async throws -> [Int32: (cpu: Double, walsender: Bool)] {
        let ports = localPorts(ofProcess: process.pid).map(Int32.init)
        guard !ports.isEmpty else { return [:] }
        var backends: [Int32: (cpu: Double, walsender: Bool)] = [:]
        let rows = try await client.query(
            """
            SELECT pid, backend_type = 'walsender' FROM pg_stat_activity WHERE client_port = ANY(\(ports))
            """)
        for try await (pid, walsender) in rows.decode((Int32, Bool).self) {
            backends[pid] = (TemporaryPostgres.cpuSeconds(ofProcess: pid) ?? 0, walsender)
        }
        return backends
    }

    /// Waits, for at most two minutes, until one of `process`'s backends is a walsender.
    ///
    /// A new logical slot waits for a log record of the running transactions with none in flight, and the
    /// background writer logs one every 15 seconds while the database is busy: after a run, that can take 30 s.
    private func waitForWalsender(of process: ChildProcess) async throws {
        for _ in 0..<1200 {
            if try await backends(of: process).values.contains(where: \.walsender) { return }
            guard process.isRunning else { break }
            try await Task.sleep(for: .milliseconds(100))
        }
        throw TemporaryPostgres.Failure(
            description: "\(process.name) has no walsender after 2 minutes: \(process.output.suffix(4000))")
    }

    /// The server's rows: a `GET` in PostgREST's dialect, the same live query as the stream's (its results, which
    /// followed the writes, not a fetch of its own) must have the table's count and checksums. Waits up to a minute
    /// for the server to catch up.
    private func checkRows(at base: String, follower: Follower) async throws {
        struct Row: Decodable {
            var id: Int64
            var priority: Int64
        }
        let expected = try await client.query(
            """
            SELECT count(*)::int8, coalesce(sum(priority), 0)::int8, coalesce(sum(id * priority), 0)::int8 FROM todos
            """
        ).collect().first?.decode((Int64, Int64, Int64).self)
        var served: (Int64, Int64, Int64)?
        for _ in 0..<120 {
            let response = try await http.execute(
                HTTPClientRequest(url: "\(base)/todos?select=id,priority&limit=\(options.rows)"),
                timeout: .seconds(30))
            let body = try await response.body.collect(upTo: 256 << 20)
            let rows = try JSONDecoder().decode([Row].self, from: Data(body.readableBytesView))
            served = rows.reduce((Int64(rows.count), 0, 0)) { sums, row in
                (sums.0, sums.1 &+ row.priority, sums.2 &+ row.id &* row.priority)
            }
            if let served, let expected, served == expected { return }
            try await Task.sleep(for: .milliseconds(500))
        }
        throw TemporaryPostgres.Failure(
            description: "\(follower.label): the server's rows \(String(describing: served)) (count, "
                + "sum(priority), sum(id * priority)) are not the table's \(String(describing: expected))")
    }
}

/// The local ports of `pid`'s TCP sockets: its descriptors' socket inodes, looked up in `/proc/net/tcp` and `tcp6`.
///
/// The descriptors are read with `readdir` and `readlink`: `FileManager`'s listing fails as a whole when one of a
/// busy server's descriptors closes while it is read.
func localPorts(ofProcess pid: pid_t) -> Set<Int> {
    let directory = "/proc/\(pid)/fd"
    var inodes: Set<Substring> = []
    if let listing = opendir(directory) {
        defer { closedir(listing) }
        var buffer = [CChar](repeating: 0, count: 256)
        while let entry = readdir(listing) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) {
                String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self)
            }
            let length = readlink("\(directory)/\(name)", &buffer, buffer.count - 1)
            guard length > 0 else { continue }
            let target = String(decoding: buffer[..<length].map { UInt8(bitPattern: $0) }, as: UTF8.self)
            if target.hasPrefix("socket:[") { inodes.insert(target.dropFirst("socket:[".count).dropLast()) }
        }
    }
    var ports: Set<Int> = []
    for table in ["/proc/net/tcp", "/proc/net/tcp6"] {
        let text = readWhole(table)
        // sl local_address rem_address st tx_queue:rx_queue tr:tm->when retrnsmt uid timeout inode …
        for line in text.split(separator: "\n").dropFirst() {
            let fields = line.split(separator: " ")
            guard fields.count > 9, inodes.contains(fields[9]),
                let port = fields[1].split(separator: ":").last.flatMap({ Int($0, radix: 16) })
            else { continue }
            ports.insert(port)
        }
    }
    return ports
}

/// Runs `--server`: prepares the table, runs every follower in turn, `options.rounds` times, and prints the table.
func runServerMode(_ options: Options, serverPath: String) async throws {
    // Interrupted (^C, timeout's SIGTERM), it exits through exit(), whose handlers kill the server or pg_recvlogical
    // and stop the cluster: the default action would leave them running.
    let interruptions = [SIGINT, SIGTERM].map { number in
        signal(number, SIG_IGN)
        let source = DispatchSource.makeSignalSource(signal: number, queue: .global())
        source.setEventHandler { exit(1) }
        source.resume()
        return source
    }
    defer { interruptions.forEach { $0.cancel() } }
    let cluster = try TemporaryPostgres(settings: TemporaryPostgres.durableSettings)
    defer { cluster.stop() }
    let postgres = PostgresTestServer(cluster: cluster)
    say(
        "PostgreSQL at \(postgres.host):\(postgres.port), fsync on; \(options.rows) rows, \(options.serverClients) "
            + "clients, \(options.seconds) s per run; the server: \(serverPath)")
    let http = HTTPClient(eventLoopGroupProvider: .singleton)
    let followers = options.followers
    let outcome: Result<[Follower: [ServerMeasurement]], any Error>
    do {
        outcome = .success(
            try await postgres.withDatabase { client, configuration in
                let run = ServerRun(
                    options: options, serverPath: serverPath, postgres: postgres, cluster: cluster, client: client,
                    database: configuration.database ?? "postgres", http: http)
                try await run.prepare()
                var results: [Follower: [ServerMeasurement]] = [:]
                for round in 1...options.rounds {
                    for follower in followers {
                        say("round \(round), \(follower.label):")
                        let measured = try await run.run(follower)
                        results[follower, default: []].append(measured)
                        let cpu = String(
                            format: "follower %.3f (%.3f during pgbench; busy %.1f s after it), walsender %.3f, "
                                + "its backends %.3f, cluster %.3f", measured.follower, measured.followerInRun,
                            measured.catchUp, measured.walsender, measured.backends, measured.cluster)
                        say(
                            "  \(String(format: "%.0f", measured.tps)) TPS, \(measured.transactions) transactions, "
                                + "\(measured.commits) commits; CPU s: \(cpu); stream \(measured.events) events, "
                                + "\(measured.bytes) bytes")
                    }
                }
                return results
            })
    } catch {
        outcome = .failure(error)
    }
    try? await http.shutdown()
    let results = try outcome.get()
    printServerTable(results, followers: followers, rounds: options.rounds)
}

/// The table: each cell lists the rounds' values in order; the ratios compare runs of the same round.
func printServerTable(_ results: [Follower: [ServerMeasurement]], followers: [Follower], rounds: Int) {
    func cells(_ follower: Follower, _ value: (ServerMeasurement) -> String) -> String {
        (results[follower] ?? []).map(value).joined(separator: "; ")
    }
    func ratios(_ follower: Follower, to baseline: Follower) -> String {
        guard let base = results[baseline] else { return "–" }
        return zip(results[follower] ?? [], base).map { String(format: "%.2f", $0.tps / $1.tps) }.joined(
            separator: "; ")
    }
    print(
        "\nEach cell: the rounds in order. µs/change: CPU from pgbench's start until the follower is idle again / "
            + "pgbench's transactions (a row each); commits: the database's xact_commit over pgbench's run.")
    print(
        "| transport | tps | commits | server µs/change | (during pgbench only) | walsender µs/change "
            + "| server's backends µs/change | cluster µs/change | vs none | vs pg_recvlogical | busy after pgbench, s |"
    )
    print("|---|---|---|---|---|---|---|---|---|---|---|")
    func micros(_ follower: Follower, _ seconds: @escaping (ServerMeasurement) -> Double) -> String {
        cells(follower) { String(format: "%.1f", $0.perChange(seconds($0))) }
    }
    for follower in followers {
        let isFollowed = follower != .none
        let hasWalsender = isFollowed && follower != .trigger
        print(
            "| \(follower.label) | \(cells(follower) { String(format: "%.0f", $0.tps) }) "
                + "| \(cells(follower) { "\($0.commits)" }) | \(isFollowed ? micros(follower, \.follower) : "–") "
                + "| \(isFollowed ? micros(follower, \.followerInRun) : "–") "
                + "| \(hasWalsender ? micros(follower, \.walsender) : "–") "
                + "| \(isFollowed ? micros(follower, \.backends) : "–") | \(micros(follower, \.cluster)) "
                + "| \(ratios(follower, to: .none)) | \(ratios(follower, to: .recvlogical)) "
                + "| \(isFollowed ? cells(follower) { String(format: "%.1f", $0.catchUp) } : "–") |")
    }
}

/// Prints `text` and flushes it at once, also into a file or a pipe: the server's pid is read while the run goes on
/// (`perf record -p`).
func say(_ text: String) {
    print(text)
    fflush(nil)
}

/// The whole of a `/proc` file, read until `read` returns 0: the kernel hands `/proc/net/tcp` out a page at a time,
/// and `String(contentsOfFile:)` stopped after the first, missing the sockets listed after it.
func readWhole(_ path: String) -> String {
    let descriptor = open(path, O_RDONLY)
    guard descriptor >= 0 else { return "" }
    defer { close(descriptor) }
    var bytes: [UInt8] = []
    var buffer = [UInt8](repeating: 0, count: 65_536)
    while true {
        let count = read(descriptor, &buffer, buffer.count)
        guard count > 0 else { break }
        bytes += buffer[..<count]
    }
    return String(decoding: bytes, as: UTF8.self)
}
