import AsyncHTTPClient
import Foundation
import LiveResults
import NIOCore
import NIOHTTP1
import PostgresNIO
import LiveResultsTestSupport
import TodoServer

#if canImport(Glibc)
    import Glibc
#endif

/// The versioned whole results at `url` (`Accept: application/vnd.liveresults+json`).
func get(_ url: String, http: HTTPClient) async throws -> ResultsUpdate<Todo> {
    let response = try await http.execute(versionedRequest(url), timeout: .seconds(60))
    guard response.status == .ok else { throw Failure("GET \(url): \(response.status)") }
    let body = try await response.body.collect(upTo: 1 << 30)
    return try JSONDecoder().decode(ResultsUpdate<Todo>.self, from: Data(body.readableBytesView))
}

/// A `GET` of `url` that asks for the versioned whole results, not PostgREST's rows.
func versionedRequest(_ url: String) -> HTTPClientRequest {
    var request = HTTPClientRequest(url: url)
    request.headers.add(name: "Accept", value: "application/vnd.liveresults+json")
    return request
}

/// Seeds `rows` to-dos through `POST /todos`, 8 at a time.
func seed(rows: Int, base: String, http: HTTPClient) async throws {
    let next = Counter()
    try await withThrowingTaskGroup(of: Void.self) { group in
        for _ in 0..<8 {
            group.addTask {
                while true {
                    let index = next.next()
                    guard index < rows else { return }
                    var request = HTTPClientRequest(url: "\(base)/todos")
                    request.method = .POST
                    request.headers.add(name: "Content-Type", value: "application/json")
                    request.body = .bytes(
                        ByteBuffer(
                            string:
                                #"{"title":"seed \#(index)","project":"project \#(index % 10)","priority":\#(index % 5)}"#
                        ))
                    let response = try await http.execute(request, timeout: .seconds(60))
                    _ = try await response.body.collect(upTo: 1 << 20)
                    guard response.status == .created else { throw Failure("seeding: POST /todos \(response.status)") }
                }
            }
        }
        try await group.waitForAll()
    }
}

/// The largest window the server is started with: every client's window holds its whole query.
let maximumLimit = 1_000_000

/// The live query of the whole list.
let wholeList = "limit=\(maximumLimit)&sections=project"

/// Runs the load on a started server, whose list is seeded (or is seeded here when `seedThroughAPI`; else `seeded`
/// says how it was); with `database`, a sample of the replicas is compared with their query run in SQL.
func load(
    _ name: String, server: ServerProcess, options: Options, seedThroughAPI: Bool, seeded: String?,
    database: PostgresClient?, http: HTTPClient
) async throws -> RunResult {
    var result = RunResult(name: name)
    if let seeded { result.note(seeded) }
    let sampler = Sampler()
    let sampling = Task { await sampler.run(pid: server.pid) }
    defer { sampling.cancel() }
    if seedThroughAPI {
        let start = now()
        try await seed(rows: options.rows, base: server.base, http: http)
        result.note(
            "seeded \(options.rows) rows with POSTs (8 at a time) in "
                + String(format: "%.1f s", seconds(from: start, to: now())))
    }
    let initial = try await get("\(server.base)/todos?\(wholeList)", http: http)
    guard case .results(let sections) = initial.content else { throw Failure("GET /todos: not whole results") }
    let ids = sections.flatMap { $0.entities.map(\.id) }
    let log = WriteLog(count: options.writes, rows: ids)

    // The clients, each on a connection of its own, and the first update of each.
    let decoder = SharedDecoder()
    let clients = (0..<options.clients).map { index in
        StreamClient(query: options.query(forClient: index), log: log, decoder: decoder)
    }
    let opening = now()
    let following = try await openStreams(clients, base: server.base, http: http)
    defer { following.forEach { $0.cancel() } }
    let failedToOpen = clients.filter { $0.snapshot.failure != nil }
    result.note(
        "\(options.clients - failedToOpen.count) streams opened (\(openingConcurrency) at a time), their whole "
            + "results applied by each, in " + String(format: "%.1f s", seconds(from: opening, to: now()))
            + "; \(failedToOpen.count) failed to open"
            + (failedToOpen.first?.snapshot.failure.map { " (the first: \($0))" } ?? ""))

    // The poller (unless `--poller off`) starts a second early; the writes run for the stated time.
    let poller = Poller()
    let polling = options.poll ? Task { await poller.run("\(server.base)/todos?\(wholeList)", http: http) } : nil
    defer { polling?.cancel() }
    try await Task.sleep(for: .seconds(1))
    let start = now()
    let usageStart = Usage(pid: server.pid)
    let clientStart = Usage(pid: getpid())
    let streamStart = clients.map(\.counters)
    let pollStart = poller.counters
    await drive(log: log, rate: options.rate, writers: options.writers, start: start, http: http, base: server.base)
    let end = now()
    let usageEnd = Usage(pid: server.pid)
    let streamEnd = clients.map(\.counters)
    let pollEnd = poller.counters
    polling?.cancel()
    let elapsed = seconds(from: start, to: end)

    // The writes.
    let writes = log.snapshot
    var counts = [WriteKind: Int]()
    var statusCounts = [Int: Int]()
    var responses: [Double] = []
    for sequence in 0..<log.count {
        guard let kind = writes.kinds[sequence] else { continue }
        counts[kind, default: 0] += 1
        statusCounts[writes.statuses[sequence], default: 0] += 1
        responses.append(seconds(from: writes.sent[sequence], to: writes.answered[sequence]))
    }
    responses.sort()
    let succeeded = (0..<log.count).filter { (200..<300).contains(writes.statuses[$0]) }
    let lastSent = writes.sent.max() ?? start
    result.note(
        "writes: \(log.count) in "
            + String(
                format: "%.1f s (%.1f per second, last sent at %.1f s): ", elapsed, Double(log.count) / elapsed,
                seconds(from: start, to: lastSent))
            + WriteKind.allCases.map { "\(counts[$0] ?? 0) \($0.name)" }.joined(separator: ", ")
            + "; status "
            + statusCounts.sorted { $0.key < $1.key }.map { "\($0.key): \($0.value)" }.joined(separator: ", "))
    result.note(
        "write response: p50 \(milliseconds(percentile(responses, 0.5))), p99 \(milliseconds(percentile(responses, 0.99))), max \(milliseconds(responses.last ?? .nan))"
    )
    if statusCounts.keys.contains(where: { !(200..<300).contains($0) && $0 != 404 }) {
        result.fail("writes failed: \(statusCounts)")
    }

    // The server's CPU and RSS.
    if let usageStart, let usageEnd {
        result.cpuPerSecond = (usageEnd.cpu - usageStart.cpu) / elapsed
        result.cpuPerWrite = (usageEnd.cpu - usageStart.cpu) / Double(max(1, succeeded.count))
        let warm = start + UInt64(options.warmUp * 1e9)
        result.rssStart = usageStart.rss
        result.rssWarm = sampler.usage(at: warm)?.rss ?? 0
        result.rssEnd = usageEnd.rss
        result.rssMax = sampler.maximumRSS(from: start, to: end)
        result.note(
            String(
                format: "server CPU: %.2f s per second (%.1f s in %.1f s), %.2f ms per write answered 2xx (%ld)",
                result.cpuPerSecond, usageEnd.cpu - usageStart.cpu, elapsed, result.cpuPerWrite * 1000,
                succeeded.count))
        result.note(
            "server RSS: \(megabytes(result.rssStart)) before the writes, \(megabytes(result.rssWarm)) at warm-up end (\(String(format: "%.0f", options.warmUp)) s), \(megabytes(result.rssEnd)) at the end, max \(megabytes(result.rssMax)); "
                + String(
                    format: "after warm-up %+.1f MB", Double(result.rssEnd - result.rssWarm) / 1_048_576))
        // Whether it flattens: what the server holds for resuming (each window's and controller's recent
        // versions) grows until those histories are full, then stays.
        let sixths = (1...6).map { start + (end - start) / 6 * UInt64($0) }
        result.note(
            "server RSS each sixth of the run: "
                + sixths.map { megabytes(sampler.usage(at: $0)?.rss ?? 0) }.joined(separator: ", "))
    }
    if let clientStart, let clientEnd = Usage(pid: getpid()) {
        result.note(
            String(
                format: "load client (this process): %.2f s of CPU per second, RSS ",
                (clientEnd.cpu - clientStart.cpu) / elapsed)
                + "\(megabytes(clientEnd.rss)) at the end of the writes")
    }

    // Until every replica is at the version GET /todos of its query shows, twice in a row.
    let queries = Set(clients.map(\.query))
    func finals() async throws -> [String: ResultsUpdate<Todo>] {
        var finals: [String: ResultsUpdate<Todo>] = [:]
        for query in queries { finals[query] = try await get("\(server.base)/todos?\(query)", http: http) }
        return finals
    }
    var final = try await finals()
    let settling = now()
    while true {
        // A GET read just after the last write may show a version that a stream skipped (its updates coalesced
        // with the next): the versions to reach are read again every second.
        var asked = now()
        while clients.contains(where: {
            $0.replica.version != final[$0.query]?.version && $0.snapshot.failure == nil && !$0.snapshot.ended
        }) {
            guard seconds(from: settling, to: now()) < 60 else { break }
            try await Task.sleep(for: .milliseconds(20))
            if seconds(from: asked, to: now()) >= 1 { (final, asked) = (try await finals(), now()) }
        }
        try await Task.sleep(for: .milliseconds(200))
        let again = try await finals()
        if again.mapValues(\.version) == final.mapValues(\.version) || seconds(from: settling, to: now()) >= 60 {
            final = again
            break
        }
        final = again
    }
    let settled = seconds(from: end, to: now())

    // Sent → applied, per client. A write not seen that a later write to the same row replaced is superseded.
    var lastWrites = [Int64: Int]()
    for sequence in succeeded { lastWrites[writes.ids[sequence]] = sequence }
    let everyLastWrite = Array(lastWrites.values)
    let replaced = succeeded.count - everyLastWrite.count
    var delays: [Double] = []
    var clientP99s: [Double] = []
    var dropped: [(index: Int, why: String)] = []
    var superseded = 0
    var lost = 0
    var equal = 0
    var finalSectionsByQuery: [String: [ResultsUpdate<Todo>.Section]] = [:]
    for (query, update) in final {
        guard case .results(let sections) = update.content else {
            throw Failure("GET /todos?\(query): not whole results")
        }
        finalSectionsByQuery[query] = sections
    }
    let finalSections = finalSectionsByQuery[wholeList] ?? []
    /// The write each row of `sections` shows last (its title's stamp): two writers' writes to one row may commit
    /// in the other order than they were sent, so the last sent is not always the one shown.
    func lastShownWrites(_ sections: [ResultsUpdate<Todo>.Section]) -> [Int] {
        sections.flatMap { $0.entities.compactMap { stampedSequence(in: $0.title) ?? lastWrites[$0.id] } }
    }
    let finalIDs = Set(finalSections.flatMap { $0.entities.map(\.id) })
    let wholeListMustSee =
        lastShownWrites(finalSections) + lastWrites.filter { !finalIDs.contains($0.key) }.map(\.value)
    for (index, client) in clients.enumerated() {
        let state = client.snapshot
        let clientSections = finalSectionsByQuery[client.query] ?? []
        // A project's client must see the last write of each row its query ends with; the whole list's, every
        // last write (a deletion too). A row's last write is the one whose stamp it ends with: two writers'
        // writes to one row may commit in the other order than they were sent.
        let mustSee = client.query == wholeList ? wholeListMustSee : lastShownWrites(clientSections)
        var own: [Double] = []
        var seenReplaced = 0
        for (sequence, time) in state.seen where (200..<300).contains(writes.statuses[sequence]) {
            if !state.slid.contains(sequence) { own.append(seconds(from: writes.sent[sequence], to: time)) }
            if lastWrites[writes.ids[sequence]] != sequence { seenReplaced += 1 }
        }
        superseded += replaced - seenReplaced
        lost += mustSee.count(where: { state.seen[$0] == nil })
        delays += own
        own.sort()
        clientP99s.append(percentile(own, 0.99))
        if let failure = state.failure {
            dropped.append((index, failure))
        } else if state.ended {
            dropped.append((index, "the stream ended"))
        }
        let replicaSections = client.replica.sections.map { ($0.name, Array($0.objects)) }
        if replicaSections.count == clientSections.count
            && zip(replicaSections, clientSections).allSatisfy({ pair in
                pair.0.0 == pair.1.name && pair.0.1 == pair.1.entities
            })
        {
            equal += 1
        } else if result.failures.count < 10 {
            result.fail(
                "client \(index): replica (\(client.replica.fetchedObjects.count) rows, version \(String(describing: client.replica.version))) differs from GET /todos?\(client.query) (version \(String(describing: final[client.query]?.version)))"
            )
        }
    }
    if lost > 0 { result.fail("\(lost) writes never seen by a client (and not superseded)") }
    result.dropped = dropped.count
    result.note("streams dropped (failed to open, failed or ended): \(dropped.count) of \(clients.count)")
    if let first = dropped.first {
        result.fail("\(dropped.count) streams dropped; the first, client \(first.index): \(first.why)")
    }
    delays.sort()
    clientP99s.sort()
    (result.p50, result.p99, result.max) = (percentile(delays, 0.5), percentile(delays, 0.99), delays.last ?? .nan)
    result.note(
        "sent-to-applied (\(clients.count) clients, \(delays.count) writes seen): p50 \(milliseconds(result.p50)), p99 \(milliseconds(result.p99)), max \(milliseconds(result.max)); per-client p99: median \(milliseconds(percentile(clientP99s, 0.5))), worst \(milliseconds(clientP99s.last ?? .nan))"
    )
    result.note(
        "not seen: \(superseded) superseded by a later write to the same row before shown, \(lost) lost")

    // Bytes: the streams against the poller over the same period.
    let streamBytes = zip(streamStart, streamEnd).map { $1.bytes - $0.bytes }
    let streamUpdates = zip(streamStart, streamEnd).map { $1.updates - $0.updates }
    let meanBytes = Double(streamBytes.reduce(0, +)) / Double(max(1, clients.count))
    let meanUpdates = Double(streamUpdates.reduce(0, +)) / Double(max(1, clients.count))
    let pollBytes = pollEnd.bytes - pollStart.bytes
    result.bytesPerUpdate = meanBytes / meanUpdates
    result.ratio = Double(pollBytes) / meanBytes
    let pollDurations = poller.durations.sorted()
    result.note(
        String(
            format: "stream per client: %.0f updates (%.2f per write), ", meanUpdates, meanUpdates / Double(log.count))
            + megabytes(Int(meanBytes))
            + String(
                format: " (%.0f B per update, %.0f B per write, %.1f KB/s)", result.bytesPerUpdate,
                meanBytes / Double(log.count), meanBytes / elapsed / 1024))
    if options.poll {
        result.note(
            "poller: \(pollEnd.polls - pollStart.polls) polls, \(megabytes(pollBytes))"
                + String(format: " (%.1f KB/s; ", Double(pollBytes) / elapsed / 1024)
                + "GET p50 \(milliseconds(percentile(pollDurations, 0.5))), max \(milliseconds(pollDurations.last ?? .nan)))"
                + String(format: "; poll bytes / stream bytes: %.1f", result.ratio))
    } else {
        result.note("poller: off")
    }

    result.equal = "\(equal)/\(clients.count)"
    let finalRows = finalSections.reduce(0) { $0 + $1.entities.count }
    result.note(
        "replicas equal to GET /todos of their query (\(queries.count) queries; the whole list \(finalRows) rows, \(finalSections.count) sections): \(result.equal), "
            + String(format: "settled %.1f s after the last write", settled))

    // What the database holds, for a sample of the clients spread over the queries.
    if let database {
        let sampled = sample(of: clients, count: 200)
        let checking = now()
        let (equal, rows) = try await equalToSQL(sampled, database)
        result.equalToSQL = "\(equal)/\(sampled.count)"
        result.note(
            "sampled replicas equal to their query run in SQL: \(result.equalToSQL) (of \(clients.count) clients, "
                + "\(Set(sampled.map(\.query)).count) queries, \(rows) rows; "
                + String(format: "%.1f s)", seconds(from: checking, to: now())))
        if equal != sampled.count { result.fail("\(sampled.count - equal) sampled replicas differ from SQL") }
    }
    return result
}

func run(_ store: String, options: Options, http: HTTPClient) async throws -> RunResult {
    guard store == "postgres" else {
        return try await load(
            "in memory", serving: [], options: options, seedThroughAPI: true, seeded: nil, database: nil, http: http)
    }
    return try await withSeededDatabase(rows: options.rows, fsync: options.fsync) { url, seeded, database in
        try await load(
            "PostgreSQL, \(options.changes?.rawValue ?? "notify")\(options.fsync ? "" : ", fsync off")",
            serving: ["--postgres", url, "--changes", options.changes?.rawValue ?? "notify"],
            options: options, seedThroughAPI: false,
            seeded: "seeded \(options.rows) rows with INSERT … SELECT generate_series in "
                + String(format: "%.1f s", seeded),
            database: database, http: http)
    }
}

/// Starts a server with `arguments`, runs the load on it, and stops it; a server that does not exit cleanly is
/// a failure.
func load(
    _ name: String, serving arguments: [String], options: Options, seedThroughAPI: Bool, seeded: String?,
    database: PostgresClient?, http: HTTPClient
) async throws -> RunResult {
    let server = try await ServerProcess(
        arguments + options.serverLimits, executable: options.executable)
    do {
        var result = try await load(
            name, server: server, options: options, seedThroughAPI: seedThroughAPI, seeded: seeded,
            database: database, http: http)
        if let status = await server.stop(), status != 0 {
            result.fail("the server exited with status \(status): \(server.printed.suffix(2_000))")
        }
        return result
    } catch {
        _ = await server.stop()
        throw error
    }
}

/// Runs `body` with the URL of a new database of the test cluster whose `todos` table holds `rows` seeded rows,
/// the seconds the seeding took, and a client of that database.
func withSeededDatabase(
    rows: Int, fsync: Bool,
    _ body: @Sendable (_ url: String, _ seeded: Double, _ client: PostgresClient) async throws -> RunResult
) async throws -> RunResult {
    // PostgreSQL's durability, as users run it, unless asked otherwise.
    let postgres = try fsync ? PostgresTestServer.durable() : PostgresTestServer.shared()
    return try await postgres.withDatabase { client, configuration in
        try await client.query(
            """
            CREATE TABLE todos (id bigserial PRIMARY KEY, title text NOT NULL, project text NOT NULL, \
            priority int NOT NULL)
            """)
        let start = now()
        try await client.query(
            """
            INSERT INTO todos (title, project, priority) SELECT 'seed ' || i, 'project ' || (i % 10), i % 5 \
            FROM generate_series(0, \(rows - 1)) i
            """)
        try await client.query("VACUUM ANALYZE todos")
        let url = postgres.url(database: configuration.database)
        return try await body(url, seconds(from: start, to: now()), client)
    }
}
