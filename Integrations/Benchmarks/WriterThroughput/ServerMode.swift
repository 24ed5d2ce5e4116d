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

/// The replication slots (`pg_replication_slots`) and walsenders (`pg_stat_replication`) in use.
struct Replication {
    var slots = 0
    /// The slots' names, each with ` (inactive)` when no walsender or SQL reader has it.
    var slotNames = ""
    var walsenders = 0
}

/// A run of `--server`: a follower, and with the server's `wal`, how many processes follow the table at once.
struct ServerRunKind: Hashable {
    var follower: Follower
    var processes = 1

    /// The row's name in the table.
    var label: String { processes == 1 ? follower.label : "\(follower.label), \(processes) processes" }

    /// The runs of a round: the followers in turn, the server's `wal` once per count of `processes`.
    static func round(_ followers: [Follower], processes: [Int]) -> [ServerRunKind] {
        followers.flatMap { follower in
            follower == .stream
                ? processes.map { ServerRunKind(follower: follower, processes: $0) }
                : [ServerRunKind(follower: follower)]
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
    /// The CPU seconds of the follower's processes (the servers, or `pg_recvlogical`), from pgbench's start until
    /// the follower is idle again: their sum.
    var follower: Double
    /// The same, each process's.
    var perProcess: [Double]
    /// The part of `follower` spent while pgbench ran.
    var followerInRun: Double
    /// The seconds the follower stayed busy after pgbench ended (at least a second: two idle half-seconds).
    var catchUp: Double
    /// The CPU seconds, until the follower is idle, of the follower's walsenders (with `wal-sql`, of all its backends:
    /// the pool's connections take turns reading the slot).
    var walsender: Double
    /// The CPU seconds of all the follower's backends, the walsender included.
    var backends: Double
    /// The CPU seconds of the whole cluster.
    var cluster: Double
    /// The events and bytes the stream client read during pgbench's run.
    var events: Int
    var bytes: Int
    /// The most replication slots and walsenders seen at once while pgbench ran.
    var replication: Replication

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

    /// The cluster's replication settings for runs of up to `processes` servers with `--changes wal`: each process
    /// holds a slot and a walsender, a process that restarts may hold a second for a while (its old slot stays
    /// until it is dropped, and its old walsender until PostgreSQL finds the connection gone), and `pg_recvlogical`
    /// takes one of each. Set to that and no more, so that a run shows what a deployment of that many processes needs.
    static func replicationSettings(processes: Int) -> [String: String] {
        let needed = "\(2 * processes + 1)"
        return ["max_wal_senders": needed, "max_replication_slots": needed]
    }

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

    /// Runs pgbench with `kind`'s follower following the table (`kind.processes` servers at once with the server's
    /// `wal`); after a run of the server, checks that each process's rows equal the table's.
    func run(_ kind: ServerRunKind) async throws -> ServerMeasurement {
        let follower = kind.follower
        var processes: [ChildProcess] = []
        var streams: [EventStreamClient] = []
        var bases: [String] = []
        do {
            switch follower {
            case .none: break
            case .recvlogical:
                guard let bin = TemporaryPostgres.binDirectory() else {
                    throw TemporaryPostgres.Failure(description: TemporaryPostgres.installHint)
                }
                // pgoutput, protocol 1, the table's publication: what the feed asks for; no fsync of /dev/null.
                processes.append(
                    try ChildProcess(
                        "\(bin)/pg_recvlogical",
                        [
                            "-h", postgres.host, "-p", "\(postgres.port)", "-U", postgres.username, "-d", database,
                            "--slot", Self.slot, "--create-slot", "--start", "-P", "pgoutput",
                            "-o", "proto_version=1", "-o", "publication_names=\(Self.publication)",
                            "-f", "/dev/null", "-F", "0",
                        ],
                        environment: ["PGPASSWORD=\(postgres.password ?? "")", "PATH=/usr/bin:/bin"]))
            case .stream, .sql, .trigger:
                // One after the other: each fetches the whole table before it listens, and creates its own slot.
                for _ in 0..<kind.processes {
                    let server = try await startServer(changes: follower.rawValue)
                    processes.append(server)
                    let base = "http://127.0.0.1:\(try port(of: server))"
                    bases.append(base)
                    say("  a server's pid: \(server.pid)")
                    let client = EventStreamClient(url: "\(base)/todos/events?limit=\(options.rows)", http: http)
                    streams.append(client)
                    try await client.waitForFirstEvent(within: .seconds(120))
                }
            }
            // The walsender of each stream or of pg_recvlogical must be there before the run starts, or its CPU would
            // not be counted. (With wal-sql, the server listens once its feed reads.)
            if follower == .recvlogical || follower == .stream {
                for process in processes { try await waitForWalsender(of: process) }
            }
            let before = try await readings(of: processes)
            let counted = streams.map(\.snapshot)
            // The followers' backends are listed every 200 ms while pgbench runs: a stream that reconnects ends its
            // walsender and starts another, whose CPU would be missed by readings before and after alone. The slots
            // and walsenders in use are counted at the same time.
            let sampler = Task { [self, processes] in
                var seen: [Int32: (cpu: Double, walsender: Bool)] = [:]
                var replication = Replication()
                while !Task.isCancelled {
                    for (pid, backend) in (try? await self.backends(of: processes)) ?? [:] {
                        seen[pid] = (backend.cpu, backend.walsender || seen[pid]?.walsender == true)
                    }
                    if let now = try? await self.replicationInUse() {
                        if now.slots > replication.slots {
                            (replication.slots, replication.slotNames) = (now.slots, now.slotNames)
                        }
                        replication.walsenders = max(replication.walsenders, now.walsenders)
                    }
                    try? await Task.sleep(for: .milliseconds(200))
                }
                return (seen, replication)
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
            let window = try await readings(of: processes)
            // A follower that lags behind the writers follows the run's changes after it too: its CPU (and its
            // walsender's) is counted until it is idle again.
            let clock = ContinuousClock.now
            try await waitUntilIdle(processes)
            let catchUp = (ContinuousClock.now - clock) / .seconds(1)
            sampler.cancel()
            var after = try await readings(of: processes)
            let (sampled, replication) = await sampler.value
            for (pid, backend) in sampled where after.backends[pid] == nil {
                after.backends[pid] = backend
            }
            let streamed = streams.map(\.snapshot)
            if let failure = streamed.lazy.compactMap(\.failure).first {
                throw TemporaryPostgres.Failure(description: "a stream: \(failure)")
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
            if !processes.isEmpty {
                say("  the backends (CPU during the run): \(listed.joined(separator: ", "))")
            }
            for process in processes {
                // What the server said of its change feed: a reconnection shows there.
                let feed = process.output.split(separator: "\n").filter { $0.contains("change feed") }
                if feed.count > 1 { say("  \(process.pid)'s feed: \(feed.suffix(6).joined(separator: "\n    "))") }
            }
            let perProcess = zip(after.processes, before.processes).map { $0 - $1 }
            let measurement = ServerMeasurement(
                tps: result.tps, transactions: result.transactions, commits: Int(window.commits - before.commits),
                follower: perProcess.reduce(0, +), perProcess: perProcess,
                followerInRun: zip(window.processes, before.processes).map { $0 - $1 }.reduce(0, +),
                catchUp: catchUp, walsender: walsender, backends: backends,
                cluster: after.cluster - before.cluster,
                events: zip(streamed, counted).map { $0.events - $1.events }.reduce(0, +),
                bytes: zip(streamed, counted).map { $0.bytes - $1.bytes }.reduce(0, +),
                replication: replication)
            for base in bases { try await checkRows(at: base, label: kind.label) }
            await finish(follower, processes: processes, streams: streams)
            return measurement
        } catch {
            await finish(follower, processes: processes, streams: streams)
            throw error
        }
    }

    /// Stops what `run` started, and leaves the database as it found it: no slot, no trigger.
    private func finish(_ follower: Follower, processes: [ChildProcess], streams: [EventStreamClient]) async {
        for stream in streams { await stream.stop() }
        for process in processes { await process.stop() }
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

    /// The replication slots (`pg_replication_slots`) and walsenders (`pg_stat_replication`) of the cluster now.
    private func replicationInUse() async throws -> Replication {
        let row = try await client.query(
            """
            SELECT (SELECT count(*)::int FROM pg_replication_slots), (SELECT count(*)::int FROM pg_stat_replication),
            (SELECT coalesce(string_agg(slot_name || CASE WHEN active THEN '' ELSE ' (inactive)' END, ', '), '')
            FROM pg_replication_slots)
            """
        ).collect().first?.decode((Int, Int, String).self)
        guard let (slots, walsenders, names) = row else { return Replication() }
        return Replication(slots: slots, slotNames: names, walsenders: walsenders)
    }

    /// Waits, for at most 10 seconds, until the temporary slots of the servers that stopped are gone: the next run
    /// should not pay for them. Says which are left after that (the running feeds sweep them later).
    private func waitForNoSlots() async throws {
        for _ in 0..<100 {
            if try await slotCount() == 0 { return }
            try await Task.sleep(for: .milliseconds(100))
        }
        say("  slots left 10 s after the run: \(try await replicationInUse().slotNames)")
    }

    /// Waits until `processes` and their backends have used less than 10 % of a core over two half-seconds in a row,
    /// for at most two minutes.
    private func waitUntilIdle(_ processes: [ChildProcess]) async throws {
        guard !processes.isEmpty else { return }
        func busy() async throws -> Double {
            let own = processes.map { TemporaryPostgres.cpuSeconds(ofProcess: $0.pid) ?? 0 }.reduce(0, +)
            return try await backends(of: processes).values.reduce(own) { $0 + $1.cpu }
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
        /// The CPU seconds of each of the followers' processes, in their order.
        var processes: [Double] = []
        var cluster = 0.0
        var commits: Int64 = 0
        var backends: [Int32: (cpu: Double, walsender: Bool)] = [:]
    }

    private func readings(of processes: [ChildProcess]) async throws -> Readings {
        var readings = Readings()
        readings.processes = processes.map { TemporaryPostgres.cpuSeconds(ofProcess: $0.pid) ?? 0 }
        readings.backends = try await backends(of: processes)
        readings.cluster = cluster.cpuSeconds ?? 0
        readings.commits =
            try await client.query(
                "SELECT xact_commit FROM pg_stat_database WHERE datname = current_database()"
            ).collect().first?.decode(Int64.self) ?? 0
        return readings
    }

    /// The backends of `processes`' connections (found by their client ports), their CPU, and whether each is a
    /// walsender.
    private func backends(of processes: [ChildProcess]) async throws -> [Int32: (cpu: Double, walsender: Bool)] {
        let ports = processes.flatMap { localPorts(ofProcess: $0.pid) }.map(Int32.init)
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
            if try await backends(of: [process]).values.contains(where: \.walsender) { return }
            guard process.isRunning else { break }
            try await Task.sleep(for: .milliseconds(100))
        }
        throw TemporaryPostgres.Failure(
            description: "\(process.name) has no walsender after 2 minutes: \(process.output.suffix(4000))")
    }

    /// The server's rows: a `GET` in PostgREST's dialect, the same live query as the stream's (its results, which
    /// followed the writes, not a fetch of its own) must have the table's count and checksums. Waits up to a minute
    /// for the server to catch up. `label` names the run in the failure.
    private func checkRows(at base: String, label: String) async throws {
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
            description: "\(label), \(base): the server's rows \(String(describing: served)) (count, "
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
    let replication = ServerRun.replicationSettings(processes: options.processes.max() ?? 1)
    let cluster = try TemporaryPostgres(settings: TemporaryPostgres.durableSettings.merging(replication) { $1 })
    defer { cluster.stop() }
    let postgres = PostgresTestServer(cluster: cluster)
    let settings = replication.sorted { $0.key < $1.key }.map { "\($0.key) \($0.value)" }.joined(separator: ", ")
    say(
        "PostgreSQL at \(postgres.host):\(postgres.port), fsync on, \(settings); \(options.rows) rows, "
            + "\(options.serverClients) clients, \(options.seconds) s per run; the server: \(serverPath)")
    let http = HTTPClient(eventLoopGroupProvider: .singleton)
    let kinds = ServerRunKind.round(options.followers, processes: options.processes)
    let outcome: Result<[ServerRunKind: [ServerMeasurement]], any Error>
    do {
        outcome = .success(
            try await postgres.withDatabase { client, configuration in
                let run = ServerRun(
                    options: options, serverPath: serverPath, postgres: postgres, cluster: cluster, client: client,
                    database: configuration.database ?? "postgres", http: http)
                try await run.prepare()
                var results: [ServerRunKind: [ServerMeasurement]] = [:]
                for round in 1...options.rounds {
                    for kind in kinds {
                        say("round \(round), \(kind.label):")
                        let measured = try await run.run(kind)
                        results[kind, default: []].append(measured)
                        let each = measured.perProcess.map { String(format: "%.3f", $0) }.joined(separator: " + ")
                        let cpu = String(
                            format: "follower %.3f (%.3f during pgbench; busy %.1f s after it), walsender %.3f, "
                                + "its backends %.3f, cluster %.3f", measured.follower, measured.followerInRun,
                            measured.catchUp, measured.walsender, measured.backends, measured.cluster)
                        say(
                            "  \(String(format: "%.0f", measured.tps)) TPS, \(measured.transactions) transactions, "
                                + "\(measured.commits) commits; CPU s: \(cpu)"
                                + "\(measured.perProcess.count > 1 ? " (each process: \(each))" : ""); streams "
                                + "\(measured.events) events, \(measured.bytes) bytes; in use at most: "
                                + "\(measured.replication.slots) slots (\(measured.replication.slotNames)), "
                                + "\(measured.replication.walsenders) walsenders")
                    }
                }
                return results
            })
    } catch {
        outcome = .failure(error)
    }
    try? await http.shutdown()
    let results = try outcome.get()
    printServerTable(results, kinds: kinds)
    if options.processes != [1] { printProcessesTable(results, processes: options.processes) }
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
