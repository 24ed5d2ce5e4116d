// The server example under load, as its users would load it: LiveResultsServer in a process of its own, N
// clients following `GET /todos/events` (Server-Sent Events) and one polling `GET /todos` every second, while
// the REST API takes W writes per second.
//
//   swift build -c release --package-path Integrations --product ServerLoad --product LiveResultsServer
//   Integrations/.build/release/ServerLoad [--rows N] [--clients C] [--rate W] [--seconds S] [--store S] [--quick]
//
// For each store (memory, then PostgreSQL; `--store memory|postgres|both`), the server is started from the
// binary beside this one, a list of N rows (10,000) is seeded (POSTs 8 at a time in memory; for PostgreSQL one
// `INSERT … SELECT generate_series` before the server starts), C clients (100) open the event stream, each
// applying the updates to a `ResultsReplica<Todo>` of its own, and writer tasks send W writes per second (200)
// for S seconds (30): PATCHes of priority, title or project, POSTs, DELETEs of random rows. Each write puts its
// sequence number in the title (`w123`) and its send time is kept; the latency of a write for a client is the
// time from sending it to applying the update that shows it there (a deletion: the update that removes the row).
// The clients follow live queries (§18): even-numbered ones the whole list, odd-numbered ones one project
// (`?project=eq.project K`, K from 0 to 9), so the server keeps 11 queries and routes each write only to those
// it can change. At the end every replica must equal `GET /todos` of its query (sections and order), else the
// exit status is 1. The
// server's CPU time and RSS are read from /proc every second. `--quick` (2,000 rows, 20 clients, 50 writes per
// second, 5 seconds) is the CI smoke run. Uses LIVERESULTS_POSTGRES_URL, else a temporary cluster. The PostgreSQL
// server follows the database through `--changes notify` (the default: the trigger's notifications) or `wal` (the
// write-ahead log).
//
// `--queries Q` gives the clients Q distinct live queries instead (up to 200: the 50 pairs of project and
// priority, four orders, windows of 20 to 100 rows). In a window a row also enters because another left; such
// a row's last write is not a write reaching the client (the departure is), so it is not timed.
//
// `--resume` (PostgreSQL; `--changes wal` by default there, or `notify`) runs two server processes on one database:
// the clients follow process A, process B holds the same queries live (one client each), the writes go through
// B; then A is killed, and a second later every client reconnects to B with the version it read last. It
// reports how many resumed with one catch-up rather than the whole window, and checks every replica, after a
// second more of writes, against a new process's GET of its query (what the database holds).
import AsyncHTTPClient
import Foundation
import LiveResults
import NIOCore
import PostgresNIO
import PostgresTestSupport
import Synchronization
import TodoServer

#if canImport(Glibc)
    import Glibc
#endif

struct Options {
    var rows = 10_000
    var clients = 100
    var rate = 200
    var seconds = 30
    var stores = ["memory", "postgres"]
    var writers = 4
    /// Distinct live queries with filters on project and priority and windows of 20–100, which the clients
    /// share; `nil`: the whole list and one query per project.
    var queries: Int?
    /// The run that kills one of two server processes and resumes its clients on the other.
    var resume = false
    /// How the servers follow the database: `wal` (the write-ahead log) or `notify`; `nil`: `notify`, and `wal`
    /// for the resume run.
    var changes: String?

    init(_ arguments: [String]) {
        var iterator = arguments.dropFirst().makeIterator()
        while let argument = iterator.next() {
            if argument == "--quick" {
                (rows, clients, rate, seconds) = (2_000, 20, 50, 5)
                continue
            }
            if argument == "--resume" {
                resume = true
                stores = ["postgres"]
                continue
            }
            let text = iterator.next()
            let value = text.flatMap(Int.init).flatMap { $0 > 0 ? $0 : nil }
            switch (argument, value, text) {
            case ("--rows", let value?, _): rows = value
            case ("--clients", let value?, _): clients = value
            case ("--rate", let value?, _): rate = value
            case ("--seconds", let value?, _): seconds = value
            case ("--writers", let value?, _): writers = value
            case ("--queries", let value?, _): queries = value
            case ("--changes", _, "wal"), ("--changes", _, "notify"): changes = text!
            case ("--store", _, "memory"): stores = ["memory"]
            case ("--store", _, "postgres"): stores = ["postgres"]
            case ("--store", _, "both"): stores = ["memory", "postgres"]
            default:
                print(
                    """
                    usage: ServerLoad [--rows N] [--clients C] [--rate WRITES_PER_SECOND] [--seconds S] [--writers K]
                                      [--store memory|postgres|both] [--changes notify|wal] [--queries Q] [--resume] [--quick]
                    """)
                exit(2)
            }
        }
    }

    var writes: Int { rate * seconds }

    /// The live query client `index` follows, as URL parameters.
    ///
    /// With `queries`, query `q` filters on one of the 50 pairs of project and priority and orders by one of four
    /// orders (so up to 200 distinct queries, each a controller of the server), with a window of 20 to 100.
    func query(forClient index: Int) -> String {
        guard let queries else {
            return index.isMultiple(of: 2) ? wholeList : "project=eq.project%20\(index / 2 % 10)&\(wholeList)"
        }
        let query = index % queries
        let pair = query % 50
        let order = ["id.desc", "title.asc", "title.desc", "id.asc"][query / 50 % 4]
        let limit = 20 + 20 * ((query + query / 50) % 5)
        return "project=eq.project%20\(pair % 10)&priority=eq.\(pair / 10)&order=\(order)&limit=\(limit)"
    }
    /// The first part of the writes, after which the server's RSS should stay flat.
    var warmUp: Double { Double(seconds) / 6 }
}

// MARK: - Clocks and statistics

/// Nanoseconds on the monotonic clock, shared by the writers and the clients of this process.
func now() -> UInt64 {
    var time = timespec()
    clock_gettime(CLOCK_MONOTONIC, &time)
    return UInt64(time.tv_sec) * 1_000_000_000 + UInt64(time.tv_nsec)
}

func seconds(from start: UInt64, to end: UInt64) -> Double { Double(end &- start) / 1e9 }

func percentile(_ sorted: [Double], _ fraction: Double) -> Double {
    guard !sorted.isEmpty else { return .nan }
    return sorted[min(sorted.count - 1, Int((Double(sorted.count) * fraction).rounded(.down)))]
}

func milliseconds(_ seconds: Double) -> String { String(format: "%.1f ms", seconds * 1000) }

func megabytes(_ bytes: Int) -> String { String(format: "%.1f MB", Double(bytes) / 1_048_576) }

struct Failure: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}

/// A value behind a lock, shareable by reference.
final class Locked<Value: Sendable>: Sendable {
    private let mutex: Mutex<Value>

    init(_ value: Value) { mutex = Mutex(value) }

    func withLock<Result: Sendable>(_ body: (inout Value) -> Result) -> Result { mutex.withLock { body(&$0) } }
}

/// Hands out 0, 1, 2, … to concurrent tasks.
final class Counter: Sendable {
    private let value = Atomic<Int>(0)

    func next() -> Int { value.add(1, ordering: .relaxed).oldValue }
}

// MARK: - Writes

/// What a write does.
enum WriteKind: UInt8, CaseIterable {
    case priority, title, project, create, delete

    var name: String {
        switch self {
        case .priority: "priority"
        case .title: "title"
        case .project: "project"
        case .create: "POST"
        case .delete: "DELETE"
        }
    }

    /// 40% priority, 20% title, 20% project, 10% POST, 10% DELETE.
    static func random() -> WriteKind {
        switch Int.random(in: 0..<10) {
        case 0..<4: .priority
        case 4..<6: .title
        case 6..<8: .project
        case 8: .create
        default: .delete
        }
    }
}

/// The title that stamps write `sequence`.
func title(_ sequence: Int) -> String { "w\(sequence)" }

/// The sequence number a title stamps, if a write's.
func stampedSequence(in title: String) -> Int? {
    let utf8 = title.utf8
    guard utf8.count > 1, utf8.first == UInt8(ascii: "w") else { return nil }
    var value = 0
    for byte in utf8.dropFirst() {
        guard (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) else { return nil }
        value = value * 10 + Int(byte - UInt8(ascii: "0"))
    }
    return value
}

/// Every write of a run: what, on which row, when sent, and how the server answered.
final class WriteLog: Sendable {
    struct State {
        var kinds: [WriteKind?]
        var ids: [Int64]
        var sent: [UInt64]
        var answered: [UInt64]
        var statuses: [Int]
        /// The write that deletes each deleted row.
        var deletions: [Int64: Int] = [:]
        /// The rows that exist (as far as the writers know), to pick from.
        var live: [Int64]
    }

    let count: Int
    private let state: Mutex<State>

    init(count: Int, rows: [Int64]) {
        self.count = count
        state = Mutex(
            State(
                kinds: Array(repeating: nil, count: count), ids: Array(repeating: 0, count: count),
                sent: Array(repeating: 0, count: count), answered: Array(repeating: 0, count: count),
                statuses: Array(repeating: 0, count: count), live: rows))
    }

    /// Picks the row of write `sequence` (none for a POST), and stamps its send time.
    func send(_ sequence: Int, _ kind: WriteKind) -> Int64? {
        state.withLock { state in
            state.kinds[sequence] = kind
            var id: Int64?
            switch kind {
            case .create: break
            case .delete:
                if !state.live.isEmpty {
                    state.live.swapAt(Int.random(in: 0..<state.live.count), state.live.count - 1)
                    let deleted = state.live.removeLast()
                    state.deletions[deleted] = sequence
                    id = deleted
                }
            default: id = state.live.randomElement()
            }
            state.ids[sequence] = id ?? 0
            state.sent[sequence] = now()
            return id
        }
    }

    func answer(_ sequence: Int, status: Int, created: Int64?) {
        let time = now()
        state.withLock { state in
            state.answered[sequence] = time
            state.statuses[sequence] = status
            if let created {
                state.ids[sequence] = created
                state.live.append(created)
            }
        }
    }

    func deletion(of id: Int64) -> Int? { state.withLock { $0.deletions[id] } }

    func kind(of sequence: Int) -> WriteKind? {
        state.withLock { sequence < $0.kinds.count ? $0.kinds[sequence] : nil }
    }

    var snapshot: State { state.withLock { $0 } }
}

/// Sends write `sequence` through the REST API.
func write(_ sequence: Int, log: WriteLog, http: HTTPClient, base: String) async {
    let kind = WriteKind.random()
    let id = log.send(sequence, kind)
    var request: HTTPClientRequest
    var body: [String: any Sendable] = ["title": title(sequence)]
    switch kind {
    case .priority: body["priority"] = Int.random(in: 0..<5)
    case .project: body["project"] = "project \(Int.random(in: 0..<10))"
    case .create:
        body["priority"] = Int.random(in: 0..<5)
        body["project"] = "project \(Int.random(in: 0..<10))"
    case .title, .delete: break
    }
    switch kind {
    case .create:
        request = HTTPClientRequest(url: "\(base)/todos")
        request.method = .POST
    case .delete:
        request = HTTPClientRequest(url: "\(base)/todos/\(id ?? 0)")
        request.method = .DELETE
    default:
        request = HTTPClientRequest(url: "\(base)/todos/\(id ?? 0)")
        request.method = .PATCH
    }
    if kind != .delete {
        let data = (try? JSONSerialization.data(withJSONObject: body)) ?? Data()
        request.headers.add(name: "Content-Type", value: "application/json")
        request.body = .bytes(ByteBuffer(bytes: data))
    }
    do {
        let response = try await http.execute(request, timeout: .seconds(60))
        let bytes = try await response.body.collect(upTo: 1 << 20)
        var created: Int64?
        if kind == .create, response.status == .created {
            created = try JSONDecoder().decode(Todo.self, from: Data(bytes.readableBytesView)).id
        }
        log.answer(sequence, status: Int(response.status.code), created: created)
    } catch {
        log.answer(sequence, status: -1, created: nil)
    }
}

/// `log.count` writes at `rate` per second from `writers` tasks: write k is sent at `start + k / rate`, or as
/// soon as a writer is free after that.
func drive(log: WriteLog, rate: Int, writers: Int, start: UInt64, http: HTTPClient, base: String) async {
    let next = Counter()
    await withTaskGroup(of: Void.self) { group in
        for _ in 0..<writers {
            group.addTask {
                while true {
                    let sequence = next.next()
                    guard sequence < log.count else { return }
                    let due = start + UInt64(sequence) * 1_000_000_000 / UInt64(rate)
                    let time = now()
                    if due > time { try? await Task.sleep(for: .nanoseconds(Int64(due - time))) }
                    await write(sequence, log: log, http: http, base: base)
                }
            }
        }
    }
}

// MARK: - Clients

/// Splits a Server-Sent Events body into the `data:` of each event, byte by byte.
struct EventParser {
    private var pending: [UInt8] = []
    private var scanned = 0

    mutating func feed(_ buffer: ByteBuffer) -> [[UInt8]] {
        pending.append(contentsOf: buffer.readableBytesView)
        var events: [[UInt8]] = []
        var start = 0
        var index = max(scanned, 1)
        while index < pending.count {
            if pending[index] == 10, pending[index - 1] == 10 {
                if let data = Self.data(pending[start..<index - 1]) { events.append(data) }
                start = index + 1
                index = start + 1
            } else {
                index += 1
            }
        }
        if start > 0 { pending.removeFirst(start) }
        scanned = max(pending.count, 1)
        return events
    }

    /// The `data:` lines of an event block, joined; `nil` for a block without data (a comment, `retry:`).
    private static func data(_ block: ArraySlice<UInt8>) -> [UInt8]? {
        var data: [UInt8]?
        for line in block.split(separator: 10, omittingEmptySubsequences: true) {
            if line.starts(with: Array("data: ".utf8)) {
                data = (data ?? []) + line.dropFirst(6)
            }
        }
        return data
    }
}

/// Decodes each distinct event once for all the stream clients of this process.
///
/// Every client receives the same bytes for an update; decoding them with `JSONDecoder` once per client
/// took about a core at 100 clients and 130 writes per second, on the two cores the server also runs on, so
/// the load client, not the server, set the latency. A client still reads, splits and applies every event
/// itself; only the decoding of bytes already decoded for another client is shared, keyed by the bytes.
final class SharedDecoder: Sendable {
    private struct Cache {
        var updates: [[UInt8]: ResultsUpdate<Todo>] = [:]
        var order: [[UInt8]] = []
        var next = 0
    }

    /// How many distinct events are kept: far more than the clients can be apart.
    private static let capacity = 4096
    private let cache = Mutex(Cache())

    func decode(_ data: [UInt8]) throws -> ResultsUpdate<Todo> {
        if let update = cache.withLock({ $0.updates[data] }) { return update }
        let update = try JSONDecoder().decode(ResultsUpdate<Todo>.self, from: Data(data))
        cache.withLock { cache in
            guard cache.updates.updateValue(update, forKey: data) == nil else { return }
            if cache.order.count < Self.capacity {
                cache.order.append(data)
            } else {
                cache.updates[cache.order[cache.next]] = nil
                cache.order[cache.next] = data
                cache.next = (cache.next + 1) % Self.capacity
            }
        }
        return update
    }
}

/// A client that follows the event stream into a replica of its own, noting when it sees each write.
final class StreamClient: Sendable {
    struct State {
        /// When each write was first seen here (0: not yet).
        var seen: [UInt64]
        /// The writes first seen when their row slid into the client's window because another row left it:
        /// not a write reaching the client (the departure is), so not timed.
        var slid: Set<Int> = []
        var bytes = 0
        var updates = 0
        var failure: String?
        var ended = false
        /// Whether the next update is the first of a connection, and how the connections after the first began.
        var awaitsFirst = true
        var catchUps = 0
        var wholes = 0
    }

    let replica = ResultsReplica<Todo>()
    /// The live query the client follows, as URL parameters.
    let query: String
    private let state: Mutex<State>
    private let log: WriteLog
    private let decoder: SharedDecoder

    init(query: String, log: WriteLog, decoder: SharedDecoder) {
        self.query = query
        self.log = log
        self.decoder = decoder
        state = Mutex(State(seen: Array(repeating: 0, count: log.count)))
    }

    var counters: (bytes: Int, updates: Int) { state.withLock { ($0.bytes, $0.updates) } }
    var snapshot: State { state.withLock { $0 } }

    /// Whether the client follows a window, where rows slide in as others leave.
    var isWindowed: Bool { query.contains("limit=") && query != wholeList }

    /// Forgets how the last connection ended, before the client connects again.
    func beginConnection() {
        state.withLock { state in
            (state.failure, state.ended, state.awaitsFirst) = (nil, false, true)
        }
    }

    /// Reads `url` until the stream ends or the task is cancelled; with `lastEventID`, resumes from it.
    func follow(_ url: String, http: HTTPClient, lastEventID: ResultsVersion? = nil) async {
        do {
            var request = HTTPClientRequest(url: url)
            if let lastEventID { request.headers.add(name: "Last-Event-ID", value: lastEventID.description) }
            let response = try await http.execute(request, timeout: .hours(1))
            guard response.status == .ok else { throw Failure("GET \(url): \(response.status)") }
            var parser = EventParser()
            for try await buffer in response.body {
                let count = buffer.readableBytes
                state.withLock { $0.bytes += count }
                for data in parser.feed(buffer) {
                    try apply(try decoder.decode(data))
                }
            }
            state.withLock { $0.ended = true }
        } catch is CancellationError {
        } catch {
            if !Task.isCancelled { state.withLock { $0.failure = "\(error)" } }
        }
    }

    private func apply(_ update: ResultsUpdate<Todo>) throws {
        var seen: [Int] = []
        var slid: [Int] = []
        switch update.content {
        case .results(let sections):
            // Whole results in the middle of a stream (a catch-up the server no longer held the history for)
            // show a deletion as a row that is no longer there.
            let remaining = Set(sections.lazy.flatMap { $0.entities.map(\.id) })
            for todo in replica.fetchedObjects where !remaining.contains(todo.id) {
                if let sequence = log.deletion(of: todo.id) { seen.append(sequence) }
            }
            try replica.apply(update)
            for section in sections {
                for todo in section.entities {
                    if let sequence = stampedSequence(in: todo.title) { seen.append(sequence) }
                }
            }
        case .changes(_, let changes):
            let before = replica.snapshot
            for path in changes.deletedItems {
                if let sequence = log.deletion(of: before.object(at: path).id) { seen.append(sequence) }
            }
            try replica.apply(update)
            for item in changes.updatedItems {
                if let sequence = stampedSequence(in: item.entity.title) { seen.append(sequence) }
            }
            for item in changes.insertedItems {
                guard let sequence = stampedSequence(in: item.entity.title) else { continue }
                seen.append(sequence)
                // In a window, only a created row enters by its own write; others slide in as rows leave.
                if isWindowed && log.kind(of: sequence) != .create { slid.append(sequence) }
            }
            if !changes.movedItems.isEmpty {
                let after = replica.snapshot
                for move in changes.movedItems {
                    if let sequence = stampedSequence(in: after.object(at: move.to).title) { seen.append(sequence) }
                }
            }
        }
        let time = now()
        state.withLock { state in
            state.updates += 1
            if state.awaitsFirst {
                state.awaitsFirst = false
                if update.base != nil { state.catchUps += 1 } else if state.updates > 1 { state.wholes += 1 }
            }
            for sequence in seen where sequence < state.seen.count && state.seen[sequence] == 0 {
                state.seen[sequence] = time
                if slid.contains(sequence) { state.slid.insert(sequence) }
            }
        }
    }
}

/// Polls `GET /todos` every second, counting the bytes of the bodies.
final class Poller: Sendable {
    private let state = Mutex<(bytes: Int, polls: Int, durations: [Double])>((0, 0, []))

    var counters: (bytes: Int, polls: Int) { state.withLock { ($0.bytes, $0.polls) } }
    var durations: [Double] { state.withLock { $0.durations } }

    func run(_ url: String, http: HTTPClient) async {
        var next = now()
        while !Task.isCancelled {
            let start = now()
            if let response = try? await http.execute(HTTPClientRequest(url: url), timeout: .seconds(60)),
                let body = try? await response.body.collect(upTo: 1 << 30)
            {
                let duration = seconds(from: start, to: now())
                state.withLock {
                    $0.bytes += body.readableBytes
                    $0.polls += 1
                    $0.durations.append(duration)
                }
            }
            next += 1_000_000_000
            let time = now()
            if next > time { try? await Task.sleep(for: .nanoseconds(Int64(next - time))) }
        }
    }
}

// MARK: - The server process

/// LiveResultsServer, started from the binary beside this one.
final class ServerProcess: Sendable {
    let process: Process
    let port: Int
    private let output: Locked<String>

    var base: String { "http://127.0.0.1:\(port)" }
    var pid: Int32 { process.processIdentifier }

    init(_ arguments: [String]) async throws {
        let directory = URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath().deletingLastPathComponent()
        let executable = directory.appendingPathComponent("LiveResultsServer")
        guard FileManager.default.isExecutableFile(atPath: executable.path) else {
            throw Failure(
                "no LiveResultsServer beside ServerLoad in \(directory.path): build it with --product LiveResultsServer"
            )
        }
        let process = Process()
        process.executableURL = executable
        process.arguments = ["--port", "0"] + arguments
        let pipe = Pipe()
        process.standardOutput = pipe
        process.standardError = pipe
        let output = Locked("")
        pipe.fileHandleForReading.readabilityHandler = { handle in
            let text = String(decoding: handle.availableData, as: UTF8.self)
            output.withLock { $0 = String(($0 + text).suffix(16_384)) }
        }
        try process.run()
        self.process = process
        self.output = output
        let deadline = now() + 60_000_000_000
        var port: Int?
        while port == nil, process.isRunning, now() < deadline {
            try await Task.sleep(for: .milliseconds(10))
            port = output.withLock { text in
                text.range(of: #"http://[^:]+:\d+/"#, options: .regularExpression).flatMap {
                    Int(text[$0].dropLast().split(separator: ":").last ?? "")
                }
            }
        }
        guard let port else {
            process.terminate()
            throw Failure("the server did not start: \(output.withLock { $0 })")
        }
        self.port = port
    }

    var printed: String { output.withLock { $0 } }

    /// SIGTERM, then SIGKILL if it has not exited in 20 seconds; returns the exit status.
    func stop() async -> Int32? {
        process.terminate()
        let deadline = now() + 20_000_000_000
        while process.isRunning, now() < deadline { try? await Task.sleep(for: .milliseconds(20)) }
        guard !process.isRunning else {
            kill(process.processIdentifier, SIGKILL)
            return nil
        }
        return process.terminationStatus
    }
}

/// The server's CPU time (user + system) and resident set, from /proc.
struct Usage {
    var cpu: Double
    var rss: Int

    init?(pid: Int32) {
        guard let stat = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
            let close = stat.lastIndex(of: ")"),
            let status = try? String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8)
        else { return nil }
        // After "pid (comm)": field 3 is the state; utime and stime are fields 14 and 15.
        let fields = stat[stat.index(after: close)...].split(separator: " ")
        guard fields.count > 13, let user = Double(fields[11]), let system = Double(fields[12]) else { return nil }
        cpu = (user + system) / Double(sysconf(Int32(_SC_CLK_TCK)))
        let line = status.split(separator: "\n").first { $0.hasPrefix("VmRSS:") }
        rss = (line?.split(separator: " ").dropFirst().first.flatMap { Int($0) } ?? 0) * 1_024
    }
}

/// Samples the server's usage every second.
final class Sampler: Sendable {
    let samples = Mutex<[(time: UInt64, usage: Usage)]>([])

    func run(pid: Int32) async {
        while !Task.isCancelled {
            if let usage = Usage(pid: pid) { samples.withLock { $0.append((now(), usage)) } }
            try? await Task.sleep(for: .seconds(1))
        }
    }

    /// The last sample at or before `time`.
    func usage(at time: UInt64) -> Usage? { samples.withLock { samples in samples.last { $0.time <= time }?.usage } }

    func maximumRSS(from start: UInt64, to end: UInt64) -> Int {
        samples.withLock { samples in samples.filter { (start...end).contains($0.time) }.map(\.usage.rss).max() ?? 0 }
    }
}

// MARK: - A run

struct RunResult {
    var name: String
    var lines: [String] = []
    var failures: [String] = []
    var p50 = Double.nan
    var p99 = Double.nan
    var max = Double.nan
    var cpuPerSecond = Double.nan
    var rssWarm = 0
    var rssEnd = 0
    var bytesPerUpdate = Double.nan
    var ratio = Double.nan
    var equal = "?"
}

func get(_ url: String, http: HTTPClient) async throws -> ResultsUpdate<Todo> {
    let response = try await http.execute(HTTPClientRequest(url: url), timeout: .seconds(60))
    guard response.status == .ok else { throw Failure("GET \(url): \(response.status)") }
    let body = try await response.body.collect(upTo: 1 << 30)
    return try JSONDecoder().decode(ResultsUpdate<Todo>.self, from: Data(body.readableBytesView))
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
let wholeList = "limit=\(maximumLimit)"

/// Runs the load on a started server, whose list is seeded (or is seeded here when `seedThroughAPI`).
func load(
    _ name: String, server: ServerProcess, options: Options, seedThroughAPI: Bool, http: HTTPClient
) async throws -> RunResult {
    var result = RunResult(name: name)
    let sampler = Sampler()
    let sampling = Task { await sampler.run(pid: server.pid) }
    defer { sampling.cancel() }
    if seedThroughAPI {
        let start = now()
        try await seed(rows: options.rows, base: server.base, http: http)
        result.lines.append(
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
    let following = clients.map { client in
        Task { await client.follow("\(server.base)/todos/events?\(client.query)", http: http) }
    }
    defer { following.forEach { $0.cancel() } }
    while clients.contains(where: { $0.replica.version == nil && $0.snapshot.failure == nil }) {
        guard seconds(from: opening, to: now()) < 300 else { throw Failure("the streams did not open in 300 s") }
        try await Task.sleep(for: .milliseconds(20))
    }
    if let failure = clients.lazy.compactMap({ $0.snapshot.failure }).first {
        throw Failure("a stream failed while opening: \(failure)")
    }
    result.lines.append(
        "\(options.clients) streams opened, whole results (\(ids.count) rows) applied by each, in "
            + String(format: "%.1f s", seconds(from: opening, to: now())))

    // The poller starts a second early; the writes run for the stated time.
    let poller = Poller()
    let polling = Task { await poller.run("\(server.base)/todos?\(wholeList)", http: http) }
    defer { polling.cancel() }
    try await Task.sleep(for: .seconds(1))
    let start = now()
    let usageStart = Usage(pid: server.pid)
    let streamStart = clients.map(\.counters)
    let pollStart = poller.counters
    await drive(log: log, rate: options.rate, writers: options.writers, start: start, http: http, base: server.base)
    let end = now()
    let usageEnd = Usage(pid: server.pid)
    let streamEnd = clients.map(\.counters)
    let pollEnd = poller.counters
    polling.cancel()
    let elapsed = seconds(from: start, to: end)

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
        while clients.contains(where: {
            $0.replica.version != final[$0.query]?.version && $0.snapshot.failure == nil && !$0.snapshot.ended
        }) {
            guard seconds(from: settling, to: now()) < 60 else { break }
            try await Task.sleep(for: .milliseconds(20))
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
    result.lines.append(
        "writes: \(log.count) in "
            + String(
                format: "%.1f s (%.1f per second, last sent at %.1f s): ", elapsed, Double(log.count) / elapsed,
                seconds(from: start, to: lastSent))
            + WriteKind.allCases.map { "\(counts[$0] ?? 0) \($0.name)" }.joined(separator: ", ")
            + "; status "
            + statusCounts.sorted { $0.key < $1.key }.map { "\($0.key): \($0.value)" }.joined(separator: ", "))
    result.lines.append(
        "write response: p50 \(milliseconds(percentile(responses, 0.5))), p99 \(milliseconds(percentile(responses, 0.99))), max \(milliseconds(responses.last ?? .nan))"
    )
    if statusCounts.keys.contains(where: { !(200..<300).contains($0) && $0 != 404 }) {
        result.failures.append("writes failed: \(statusCounts)")
    }

    // Sent → applied, per client. A write not seen that a later write to the same row replaced is superseded.
    var rowsWrites = [Int64: [Int]]()
    for sequence in succeeded { rowsWrites[writes.ids[sequence], default: []].append(sequence) }
    var delays: [Double] = []
    delays.reserveCapacity(succeeded.count * clients.count)
    var clientP99s: [Double] = []
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
    for (index, client) in clients.enumerated() {
        let state = client.snapshot
        let clientSections = finalSectionsByQuery[client.query] ?? []
        // A project's client must see the last write of each row its query ends with; the whole list's, every
        // last write (a deletion too).
        let ending = Set(clientSections.flatMap { $0.entities.map(\.id) })
        let followsAll = client.query == wholeList
        var own: [Double] = []
        own.reserveCapacity(succeeded.count)
        for sequence in succeeded {
            if state.seen[sequence] != 0 {
                if !state.slid.contains(sequence) {
                    own.append(seconds(from: writes.sent[sequence], to: state.seen[sequence]))
                }
            } else if rowsWrites[writes.ids[sequence]]?.last != sequence {
                superseded += 1
            } else if followsAll || ending.contains(writes.ids[sequence]) {
                lost += 1
            }
        }
        delays += own
        own.sort()
        clientP99s.append(percentile(own, 0.99))
        if let failure = state.failure {
            result.failures.append("client \(index): \(failure)")
        } else if state.ended {
            result.failures.append("client \(index): the stream ended")
        }
        let replicaSections = client.replica.sections.map { ($0.name, Array($0.objects)) }
        if replicaSections.count == clientSections.count
            && zip(replicaSections, clientSections).allSatisfy({ pair in
                pair.0.0 == pair.1.name && pair.0.1 == pair.1.entities
            })
        {
            equal += 1
        } else if result.failures.count < 10 {
            result.failures.append(
                "client \(index): replica (\(client.replica.fetchedObjects.count) rows, version \(String(describing: client.replica.version))) differs from GET /todos?\(client.query) (version \(String(describing: final[client.query]?.version)))"
            )
        }
    }
    if lost > 0 { result.failures.append("\(lost) writes never seen by a client (and not superseded)") }
    delays.sort()
    clientP99s.sort()
    (result.p50, result.p99, result.max) = (percentile(delays, 0.5), percentile(delays, 0.99), delays.last ?? .nan)
    result.lines.append(
        "sent-to-applied (\(clients.count) clients, \(delays.count) writes seen): p50 \(milliseconds(result.p50)), p99 \(milliseconds(result.p99)), max \(milliseconds(result.max)); per-client p99: median \(milliseconds(percentile(clientP99s, 0.5))), worst \(milliseconds(clientP99s.last ?? .nan))"
    )
    result.lines.append(
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
    result.lines.append(
        String(
            format: "stream per client: %.0f updates (%.2f per write), ", meanUpdates, meanUpdates / Double(log.count))
            + megabytes(Int(meanBytes))
            + String(
                format: " (%.0f B per update, %.0f B per write, %.1f KB/s)", result.bytesPerUpdate,
                meanBytes / Double(log.count), meanBytes / elapsed / 1024))
    result.lines.append(
        "poller: \(pollEnd.polls - pollStart.polls) polls, \(megabytes(pollBytes))"
            + String(format: " (%.1f KB/s; ", Double(pollBytes) / elapsed / 1024)
            + "GET p50 \(milliseconds(percentile(pollDurations, 0.5))), max \(milliseconds(pollDurations.last ?? .nan)))"
            + String(format: "; poll bytes / stream bytes: %.1f", result.ratio))

    // The server's CPU and RSS.
    if let usageStart, let usageEnd {
        result.cpuPerSecond = (usageEnd.cpu - usageStart.cpu) / elapsed
        let warm = start + UInt64(options.warmUp * 1e9)
        result.rssWarm = sampler.usage(at: warm)?.rss ?? 0
        result.rssEnd = usageEnd.rss
        result.lines.append(
            String(
                format: "server CPU: %.2f s per second (%.1f s in %.1f s)", result.cpuPerSecond,
                usageEnd.cpu - usageStart.cpu, elapsed))
        result.lines.append(
            "server RSS: \(megabytes(usageStart.rss)) before the writes, \(megabytes(result.rssWarm)) at warm-up end (\(String(format: "%.0f", options.warmUp)) s), \(megabytes(result.rssEnd)) at the end, max \(megabytes(sampler.maximumRSS(from: start, to: end))); "
                + String(
                    format: "after warm-up %+.1f MB", Double(result.rssEnd - result.rssWarm) / 1_048_576))
    }
    result.equal = "\(equal)/\(clients.count)"
    let finalRows = finalSections.reduce(0) { $0 + $1.entities.count }
    result.lines.append(
        "replicas equal to GET /todos of their query (\(queries.count) queries; the whole list \(finalRows) rows, \(finalSections.count) sections): \(result.equal), "
            + String(format: "settled %.1f s after the last write", settled))
    return result
}

func run(_ store: String, options: Options, http: HTTPClient) async throws -> RunResult {
    guard store == "postgres" else {
        return try await load("in memory", serving: [], options: options, seedThroughAPI: true, http: http)
    }
    return try await withSeededDatabase(rows: options.rows) { url, seeded in
        var result = try await load(
            "PostgreSQL, \(options.changes ?? "notify")",
            serving: ["--postgres", url, "--changes", options.changes ?? "notify"],
            options: options, seedThroughAPI: false, http: http)
        result.lines.insert(
            "seeded \(options.rows) rows with INSERT … SELECT generate_series in " + String(format: "%.1f s", seeded),
            at: 0)
        return result
    }
}

/// Starts a server with `arguments`, runs the load on it, and stops it; a server that does not exit cleanly is
/// a failure.
func load(
    _ name: String, serving arguments: [String], options: Options, seedThroughAPI: Bool, http: HTTPClient
) async throws -> RunResult {
    let server = try await ServerProcess(arguments + ["--maximum-limit", "\(maximumLimit)"])
    do {
        var result = try await load(name, server: server, options: options, seedThroughAPI: seedThroughAPI, http: http)
        if let status = await server.stop(), status != 0 {
            result.failures.append("the server exited with status \(status): \(server.printed.suffix(2_000))")
        }
        return result
    } catch {
        _ = await server.stop()
        throw error
    }
}

/// Runs `body` with the URL of a new database of the test cluster whose `todos` table holds `rows` seeded rows,
/// and the seconds the seeding took.
func withSeededDatabase(
    rows: Int, _ body: @Sendable (_ url: String, _ seeded: Double) async throws -> RunResult
) async throws -> RunResult {
    let postgres = try PostgresTestServer.shared()
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
        return try await body(url, seconds(from: start, to: now()))
    }
}

// MARK: - Resuming on another process

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
    for query in Set(clients.map(\.query)) { finals[query] = try await get("\(base)/todos?\(query)", http: http) }
    let settling = now()
    while clients.contains(where: { $0.replica.version != finals[$0.query]?.version && $0.snapshot.failure == nil }),
        seconds(from: settling, to: now()) < waiting
    {
        try await Task.sleep(for: .milliseconds(20))
    }
    return clients.filter { client in
        guard case .results(let sections) = finals[client.query]?.content else { return false }
        let replica = client.replica.sections.map { ($0.name, Array($0.objects)) }
        return replica.count == sections.count
            && zip(replica, sections).allSatisfy { $0.0 == $1.name && $0.1 == $1.entities }
    }.count
}

/// Two server processes on one database, both following its write-ahead log. The clients follow process A,
/// and process B holds the same queries live (one client of its own each), as another process behind a load
/// balancer would. After the writes, A is killed; a second later (an `EventSource` retries after a few), every
/// client reconnects to B with the version it read last. Reports how many resumed with one catch-up rather
/// than the whole window; every replica must then follow B to equal `GET` of its query.
func resumeOnAnotherProcess(options: Options, http: HTTPClient) async throws -> RunResult {
    try await withSeededDatabase(rows: options.rows) { url, _ in
        var result = RunResult(name: "resume")
        let arguments = [
            "--postgres", url, "--changes", options.changes ?? "wal", "--maximum-limit", "\(maximumLimit)",
        ]
        let (a, b) = (try await ServerProcess(arguments), try await ServerProcess(arguments))
        do {
            let initial = try await get("\(b.base)/todos?\(wholeList)", http: http)
            guard case .results(let sections) = initial.content else { throw Failure("GET /todos: not whole results") }
            let log = WriteLog(count: options.writes, rows: sections.flatMap { $0.entities.map(\.id) })
            let decoder = SharedDecoder()
            let clients = (0..<options.clients).map {
                StreamClient(query: options.query(forClient: $0), log: log, decoder: decoder)
            }
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
            result.lines.append(
                "\(options.clients) clients of \(keepers.count) queries on process A, \(log.count) writes in "
                    + "\(options.seconds) s, A killed: all reconnected to B in "
                    + String(format: "%.1f s", seconds(from: killed, to: now()))
                    + "; \(catchUps) resumed with one catch-up, \(wholes) got the whole window")
            result.equal = "\(catchUps)/\(options.clients)"
            if catchUps + wholes != options.clients {
                result.failures.append("\(options.clients - catchUps - wholes) clients did not reconnect once")
            }
            // Then they follow B.
            let more = WriteLog(count: options.rate, rows: log.snapshot.live)
            await drive(log: more, rate: options.rate, writers: options.writers, start: now(), http: http, base: b.base)
            _ = try await equalToGET(clients, base: b.base, http: http)
            // What the database holds, as a process that has just fetched it shows it.
            let fresh = try await ServerProcess(
                ["--postgres", url, "--changes", "notify", "--maximum-limit", "\(maximumLimit)"])
            let equal = try await equalToGET(clients, base: fresh.base, http: http, waiting: 30)
            _ = await fresh.stop()
            result.lines.append(
                "replicas equal to the database (GET of their query from a new process) after 1 s more writes: "
                    + "\(equal)/\(clients.count)")
            if equal != clients.count {
                result.failures.append("\(clients.count - equal) replicas differ from the database")
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

let options = Options(CommandLine.arguments)
var configuration = HTTPClient.Configuration()
configuration.connectionPool = .init(
    idleTimeout: .seconds(60),
    concurrentHTTP1ConnectionsPerHostSoftLimit: options.clients + (options.queries ?? 11) + options.writers + 16)
let http = HTTPClient(eventLoopGroupProvider: .singleton, configuration: configuration)
print(
    "ServerLoad: \(options.rows) rows, \(options.clients) stream clients + 1 poller (1 s), \(options.rate) writes/s for \(options.seconds) s from \(options.writers) writers; \(ProcessInfo.processInfo.activeProcessorCount) cores"
)
var results: [RunResult] = []
var failed = false
for store in options.stores {
    do {
        let result =
            options.resume
            ? try await resumeOnAnotherProcess(options: options, http: http)
            : try await run(store, options: options, http: http)
        print("\n\(result.name):")
        for line in result.lines { print("  \(line)") }
        for failure in result.failures { print("  FAILURE: \(failure)") }
        failed = failed || !result.failures.isEmpty
        results.append(result)
    } catch {
        print("\n\(store): FAILURE: \(error)")
        failed = true
    }
}
// The process exits next: no need to shut the client down.

print(
    """

    store                 sent→applied p50      p99       max  server CPU  RSS warm→end  B/update  poll/stream  replicas
    """)
/// `text` right-aligned in `width` columns.
func column(_ text: String, _ width: Int) -> String { String(repeating: " ", count: max(0, width - text.count)) + text }

for result in results {
    print(
        result.name.padding(toLength: 18, withPad: " ", startingAt: 0) + column(milliseconds(result.p50), 21)
            + column(milliseconds(result.p99), 10) + column(milliseconds(result.max), 10)
            + String(
                format: " %6.2f s/s %6.1f→%5.1f MB %9.0f %12.1f  ", result.cpuPerSecond,
                Double(result.rssWarm) / 1_048_576, Double(result.rssEnd) / 1_048_576, result.bytesPerUpdate,
                result.ratio) + result.equal)
}
print(failed ? "\nFAILED" : "\nOK")
exit(failed ? 1 : 0)
