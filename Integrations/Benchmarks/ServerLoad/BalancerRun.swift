import AsyncHTTPClient
import Foundation
import LiveResults
import NIOConcurrencyHelpers
import NIOHTTP1
import PostgresNIO
import TodoServer

#if canImport(Glibc)
    import Glibc
#endif

/// Three server processes on one database, each following its write-ahead log, behind nginx. The clients stream
/// their live queries through nginx (which spreads them over the three), and each process also holds every query
/// live through a client of its own, as a busy service would. Writes go through nginx; a third of the way through
/// them, one process is killed with SIGKILL. Each of its clients reconnects through nginx a second later (as an
/// `EventSource` does) with the version it read last, reaching another process, and must resume with one catch-up:
/// no whole results. The killed process's replication slot must be gone within 30 seconds, dropped by the
/// processes still running (no process is started meanwhile), and theirs must stay. At the end every replica must
/// equal its query run in SQL.
func behindBalancer(options: Options, http: HTTPClient) async throws -> RunResult {
    try await withSeededDatabase(rows: options.rows, fsync: options.fsync) { url, _, database in
        var result = RunResult(name: "behind nginx")
        let arguments =
            ["--postgres", url, "--changes", options.changes?.rawValue ?? "wal"] + options.serverLimits
        var servers: [ServerProcess] = []
        var nginx: Nginx?
        do {
            for _ in 0..<3 { servers.append(try await ServerProcess(arguments, executable: options.executable)) }
            let balancer = try Nginx(upstreams: servers.map(\.port))
            nginx = balancer
            try await awaitAnswer("\(balancer.base)/todos?limit=1", http: http, balancer: balancer)
            let (log, decoder, clients) = try await streamClients(options: options, base: servers[1].base, http: http)
            let queries = Set(clients.map(\.query)).sorted()
            let keepers = servers.map { server in
                (server, queries.map { StreamClient(query: $0, log: log, decoder: decoder) })
            }
            let reconnections = NIOLockedValueBox([Int](repeating: 0, count: clients.count))
            let following = clients.enumerated().map { index, client in
                Task {
                    await client.followWithRetries("\(balancer.base)/todos/events?\(client.query)", http: http) {
                        reconnections.withLockedValue { $0[index] += 1 }
                    }
                }
            }
            let keeping = keepers.flatMap { server, clients in
                clients.map { client in
                    Task { await client.follow("\(server.base)/todos/events?\(client.query)", http: http) }
                }
            }
            defer { (following + keeping).forEach { $0.cancel() } }
            try await awaitOpening(clients + keepers.flatMap(\.1))
            let victim = servers[0]
            let slotPattern = "liveresults\\_tmp\\_\(victim.pid)\\_%"
            let slots = try await slotCount(like: slotPattern, database)
            guard slots == 1 else { throw Failure("the process to kill has \(slots) slots, not 1") }
            // The writes go through nginx, the kill a third of the way through them.
            let started = now()
            let writing = Task {
                await drive(
                    log: log, rate: options.rate, writers: options.writers, start: started, http: http,
                    base: balancer.base)
            }
            try await Task.sleep(for: .milliseconds(options.seconds * 1_000 / 3))
            kill(victim.pid, SIGKILL)
            let killed = now()
            let survivors = Array(servers.dropFirst())
            // Read as it comes: a server keeps only the end of its output, which request lines push out.
            var said = false
            var slotGone: Double?
            while !said || slotGone == nil, seconds(from: killed, to: now()) < 45 {
                try await Task.sleep(for: .milliseconds(200))
                if !said {
                    said = survivors.contains {
                        $0.printed.contains("abandonedSlotDropped(slot: \"liveresults_tmp_\(victim.pid)_")
                    }
                }
                if slotGone == nil, try await slotCount(like: slotPattern, database) == 0 {
                    slotGone = seconds(from: killed, to: now())
                }
            }
            await writing.value
            let remaining = try await slotCount(like: "liveresults\\_tmp\\_%", database)
            try await awaitOpening(clients)
            let counts = reconnections.withLockedValue { $0 }
            let moved = clients.indices.filter { counts[$0] > 0 }
            let resumed = moved.filter {
                clients[$0].snapshot.catchUps == counts[$0] && clients[$0].snapshot.wholes == 0
            }
            let failed = clients.indices.filter { clients[$0].snapshot.failure != nil }
            let answered = log.snapshot.statuses.filter { (200..<300).contains($0) }.count
            result.note(
                "\(options.clients) clients of \(queries.count) queries through nginx over 3 processes; "
                    + "\(answered)/\(log.count) writes answered 2xx in \(options.seconds) s; one process killed (SIGKILL) "
                    + "under writes: \(moved.count) clients reconnected through nginx, \(resumed.count) of them with "
                    + "one catch-up each, \(moved.count - resumed.count) otherwise")
            result.note(
                "the killed process's slot: "
                    + (slotGone.map { String(format: "dropped %.1f s after the kill", $0) } ?? "not dropped in 45 s")
                    + (said ? ", in a survivor's log" : ", not in the survivors' logs")
                    + "; temporary slots left: \(remaining) (the 2 processes running)")
            if moved.isEmpty { result.fail("no client was on the killed process") }
            if resumed.count != moved.count {
                result.fail(
                    "\(moved.count - resumed.count) reconnected clients did not resume with one catch-up")
            }
            if !failed.isEmpty {
                result.fail("\(failed.count) clients failed: \(clients[failed[0]].snapshot.failure ?? "")")
            }
            if (slotGone ?? 99) >= 30 {
                result.fail("the killed process's slot was not dropped within 30 s")
            }
            if !said { result.fail("no survivor logged the drop of the killed process's slot") }
            if remaining != 2 { result.fail("\(remaining) temporary slots are left, not the survivors' 2") }
            // Once the replicas are at the versions the processes answer, each must equal its query run in SQL.
            _ = try await equalToGET(clients, base: balancer.base, http: http)
            let (equal, rows) = try await equalToSQL(clients, database)
            result.note(
                "replicas equal to their query run in SQL: \(equal)/\(clients.count) (\(rows) rows in all)")
            result.equal = "\(equal)/\(clients.count)"
            if equal != clients.count {
                result.fail("\(clients.count - equal) replicas differ from the database")
            }
            (following + keeping).forEach { $0.cancel() }
            await balancer.stop()
            for server in survivors { _ = await server.stop() }
            return result
        } catch {
            await nginx?.stop()
            for server in servers { _ = await server.stop() }
            throw error
        }
    }
}

/// The number of replication slots whose name is `LIKE` `pattern`.
private func slotCount(like pattern: String, _ database: PostgresClient) async throws -> Int {
    try await database.query("SELECT count(*)::int FROM pg_replication_slots WHERE slot_name LIKE \(pattern)")
        .collect().first?.decode(Int.self) ?? 0
}

/// Waits until `url` answers 200 (nginx has started), for 30 seconds at most.
private func awaitAnswer(_ url: String, http: HTTPClient, balancer: Nginx) async throws {
    let start = now()
    while seconds(from: start, to: now()) < 30 {
        if let response = try? await http.execute(HTTPClientRequest(url: url), timeout: .seconds(5)),
            response.status == .ok
        {
            return
        }
        try await Task.sleep(for: .milliseconds(50))
    }
    throw Failure("nginx did not answer \(url) in 30 s: \(balancer.errorLog)")
}

extension StreamClient {
    /// Follows `url` as a browser's `EventSource` does: when the stream ends or fails, waits a second and
    /// reconnects with the version it read last as `Last-Event-ID` (calling `reconnecting` first), until cancelled.
    func followWithRetries(_ url: String, http: HTTPClient, reconnecting: @Sendable () -> Void) async {
        await follow(url, http: http)
        while !Task.isCancelled {
            try? await Task.sleep(for: .seconds(1))
            guard !Task.isCancelled else { return }
            reconnecting()
            beginConnection()
            await follow(url, http: http, lastEventID: replica.version)
        }
    }
}
