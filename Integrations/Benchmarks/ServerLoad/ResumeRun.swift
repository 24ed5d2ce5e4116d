import AsyncHTTPClient
import Foundation
import LiveResults
import LiveResultsTestSupport
import TodoServer

/// Waits until every client has applied the first update of its connection; throws after `limit` seconds or
/// when a stream fails.
func awaitOpening(_ clients: [StreamClient], limit: Double = 300) async throws {
    let opening = now()
    while clients.contains(where: { $0.snapshot.awaitsFirst && $0.snapshot.failure == nil }) {
        guard seconds(from: opening, to: now()) < limit else { throw Failure("the streams did not open in \(limit) s") }
        try await Task.sleep(for: .milliseconds(20))
    }
    if let failure = clients.lazy.compactMap({ $0.snapshot.failure }).first {
        throw Failure("a stream failed while opening: \(failure)")
    }
}

/// How many of `clients` have a replica equal to `GET` of their query at `base`, once they are at its version
/// (waiting up to `waiting` seconds for them).
func equalToGET(_ clients: [StreamClient], base: String, http: HTTPClient, waiting: Double = 60) async throws -> Int {
    var finals: [String: ResultsUpdate<Todo>] = [:]
    func readFinals() async throws {
        for query in Set(clients.map(\.query)) { finals[query] = try await get("\(base)/todos?\(query)", http: http) }
    }
    try await readFinals()
    let settling = now()
    var asked = settling
    while clients.contains(where: { $0.replica.version != finals[$0.query]?.version && $0.snapshot.failure == nil }),
        seconds(from: settling, to: now()) < waiting
    {
        try await Task.sleep(for: .milliseconds(20))
        // A version read before the last changes arrived may be one a stream skipped (coalesced with the next).
        if seconds(from: asked, to: now()) >= 1 {
            try await readFinals()
            asked = now()
        }
    }
    return clients.filter { client in
        guard case .results(let sections) = finals[client.query]?.content else { return false }
        let replica = client.replica.sections.map { ($0.name, Array($0.objects)) }
        return replica.count == sections.count
            && zip(replica, sections).allSatisfy { $0.0 == $1.name && $0.1 == $1.entities }
    }.count
}

/// The stream clients of a run (one per client, each following its query of `options`), the log of the writes over
/// the rows `GET /todos` lists at `base`, and the decoder they share.
func streamClients(
    options: Options, base: String, http: HTTPClient
) async throws -> (log: WriteLog, decoder: SharedDecoder, clients: [StreamClient]) {
    let initial = try await get("\(base)/todos?\(wholeList)", http: http)
    guard case .results(let sections) = initial.content else { throw Failure("GET /todos: not whole results") }
    let log = WriteLog(count: options.writes, rows: sections.flatMap { $0.entities.map(\.id) })
    let decoder = SharedDecoder()
    let clients = (0..<options.clients).map {
        StreamClient(query: options.query(forClient: $0), log: log, decoder: decoder)
    }
    return (log, decoder, clients)
}

/// How many of `clients` have a replica equal to what the database at `url` holds: the `GET` of their query from a
/// process of `executable` started now (following notifications: it creates no slot).
func equalToDatabase(
    _ clients: [StreamClient], url: String, executable: String, http: HTTPClient
) async throws -> Int {
    let fresh = try await ServerProcess(
        ["--postgres", url, "--changes", "notify", "--maximum-limit", "\(maximumLimit)"], executable: executable)
    let equal = try await equalToGET(clients, base: fresh.base, http: http, waiting: 30)
    _ = await fresh.stop()
    return equal
}

/// Two server processes on one database, both following its write-ahead log. The clients follow process A,
/// and process B holds the same queries live (one client of its own each), as another process behind a load
/// balancer would. After the writes, A is killed; a second later (an `EventSource` retries after a few), every
/// client reconnects to B with the version it read last. Reports how many resumed with one catch-up rather
/// than the whole window; every replica must then follow B to equal `GET` of its query.
func resumeOnAnotherProcess(options: Options, http: HTTPClient) async throws -> RunResult {
    try await withSeededDatabase(rows: options.rows, fsync: options.fsync) { url, _, _ in
        var result = RunResult(name: "resume")
        let arguments =
            ["--postgres", url, "--changes", options.changes?.rawValue ?? "wal"] + options.serverLimits
        let (a, b) = (
            try await ServerProcess(arguments, executable: options.executable),
            try await ServerProcess(arguments, executable: options.executable)
        )
        do {
            let (log, decoder, clients) = try await streamClients(options: options, base: b.base, http: http)
            let keepers = Set(clients.map(\.query)).sorted().map { StreamClient(query: $0, log: log, decoder: decoder) }
            var following = clients.map { client in
                Task { await client.follow("\(a.base)/todos/events?\(client.query)", http: http) }
            }
            let keeping = keepers.map { client in
                Task { await client.follow("\(b.base)/todos/events?\(client.query)", http: http) }
            }
            defer { (following + keeping).forEach { $0.cancel() } }
            try await awaitOpening(clients + keepers)
            // The writes go through B, which stays.
            await drive(log: log, rate: options.rate, writers: options.writers, start: now(), http: http, base: b.base)
            kill(a.pid, SIGKILL)
            following.forEach { $0.cancel() }
            try await Task.sleep(for: .seconds(1))
            let killed = now()
            clients.forEach { $0.beginConnection() }
            following = clients.map { client in
                Task {
                    await client.follow(
                        "\(b.base)/todos/events?\(client.query)", http: http, lastEventID: client.replica.version)
                }
            }
            try await awaitOpening(clients)
            let catchUps = clients.reduce(0) { $0 + $1.snapshot.catchUps }
            let wholes = clients.reduce(0) { $0 + $1.snapshot.wholes }
            result.note(
                "\(options.clients) clients of \(keepers.count) queries on process A, \(log.count) writes in "
                    + "\(options.seconds) s, A killed: all reconnected to B in "
                    + String(format: "%.1f s", seconds(from: killed, to: now()))
                    + "; \(catchUps) resumed with one catch-up, \(wholes) got the whole window")
            result.equal = "\(catchUps)/\(options.clients)"
            if catchUps + wholes != options.clients {
                result.fail("\(options.clients - catchUps - wholes) clients did not reconnect once")
            }
            // Then they follow B.
            let more = WriteLog(count: options.rate, rows: log.snapshot.live)
            await drive(log: more, rate: options.rate, writers: options.writers, start: now(), http: http, base: b.base)
            _ = try await equalToGET(clients, base: b.base, http: http)
            let equal = try await equalToDatabase(clients, url: url, executable: options.executable, http: http)
            result.note(
                "replicas equal to the database (GET of their query from a new process) after 1 s more writes: "
                    + "\(equal)/\(clients.count)")
            if equal != clients.count {
                result.fail("\(clients.count - equal) replicas differ from the database")
            }
            _ = await b.stop()
            return result
        } catch {
            _ = await a.stop()
            _ = await b.stop()
            throw error
        }
    }
}
