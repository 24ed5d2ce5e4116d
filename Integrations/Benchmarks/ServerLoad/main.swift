// The server example under load, as its users would load it: LiveResultsServer (or LiveResultsVaporServer) in a
// process of its own, N
// clients following `GET /todos/events` (Server-Sent Events) and one polling `GET /todos` every second, while
// the REST API takes W writes per second.
//
//   swift build -c release --package-path Integrations --product ServerLoad --product LiveResultsServer
//   Integrations/.build/release/ServerLoad [--rows N] [--clients C] [--rate W] [--seconds S] [--store S] [--quick]
//   Integrations/.build/release/ServerLoad --help     # every option (swift-argument-parser; a bad value exits 64)
//
// For each store (memory, then PostgreSQL; `--store memory|postgres|both`), the server is started from the
// binary beside this one, a list of N rows (10,000) is seeded (POSTs 8 at a time in memory; for PostgreSQL one
// `INSERT … SELECT generate_series` before the server starts), C clients (100) open the event stream, each
// applying the updates to a `ResultsReplica<Todo>` of its own, and writer tasks send W writes per second (200)
// for S seconds (30): PATCHes of priority, title or project, POSTs, DELETEs of random rows. Each write puts its
// sequence number in the title (`w123`) and its send time is kept; the latency of a write for a client is the
// time from sending it to applying the update that shows it there (a deletion: the update that removes the row).
// The clients follow live queries (the *LiveQueries* article): even-numbered ones the whole list, odd-numbered ones one
// project (`?project=eq.project K`, K from 0 to 9), so the server keeps 11 queries and routes each write only to those
// it can change. At the end every replica must equal `GET /todos` of its query (sections and order), else the
// exit status is 1. The
// server's CPU time and RSS are read from /proc every second. `--quick` (2,000 rows, 20 clients, 50 writes per
// second, 5 seconds) is the CI smoke run. The PostgreSQL
// server follows the database through `--changes notify` (the default: the trigger's notifications) or `wal` (the
// write-ahead log, read as a replication stream), or `wal-sql` (the same log read over SQL). The PostgreSQL run starts a cluster of its own with `fsync` on, PostgreSQL's default; `--fsync off`
// uses LIVERESULTS_POSTGRES_URL or the shared temporary cluster, for a comparison.
//
// `--server NAME` picks the executable beside this one: `LiveResultsServer` (Hummingbird, the default) or
// `LiveResultsVaporServer` (Vapor and Fluent); given twice, each runs in turn under the same load, in one table.
//
// `--queries Q` gives the clients Q distinct live queries instead (up to 1,000: the 50 pairs of project and
// priority, four orders, windows of 20 to 100 rows, and past 200 the same with a bound on `id`). In a window a row
// also enters because another left; such a row's last write is not a write reaching the client (the departure is),
// so it is not timed.
//
// The servers of a run are started with `--maximum-streams` and `--maximum-queries` enough for its clients; the
// streams open 100 at a time, and one that fails to open, fails or ends counts as dropped and fails the run. Each
// line is printed as soon as it is known. Over PostgreSQL a sample of 200 replicas, spread over the queries, is also
// compared with its query run in SQL.
//
// `--resume` (PostgreSQL; `--changes wal` by default there, or `notify`) runs two server processes on one database:
// the clients follow process A, process B holds the same queries live (one client each), the writes go through
// B; then A is killed, and a second later every client reconnects to B with the version it read last. It
// reports how many resumed with one catch-up rather than the whole window, and checks every replica, after a
// second more of writes, against a new process's GET of its query (what the database holds).
//
// `--balancer` (PostgreSQL, `--changes wal`; 2,000 rows, 300 clients over 20 queries, 50 writes/s for 9 s unless
// given) runs three server processes on one database behind nginx (`apt-get install nginx`; started by this
// tool with a configuration of its own): the clients stream through nginx, one process is killed with SIGKILL under
// the writes, and its clients reconnect through nginx with `Last-Event-ID`. Every one must resume with one catch-up,
// the killed process's slot must be dropped by the others within 30 s (and logged), and every replica must equal
// what the database holds.
//
// `--idle-streams N` (in memory) holds N idle `GET /todos/events` streams on a server, in three shapes (one live
// query and range, N distinct ranges, the whole list), each on a new server, and reports its resident memory
// before, with them open and after they closed: what a stream costs (mind the descriptor limit, `ulimit -n`).
import ArgumentParser
import AsyncHTTPClient
import Foundation
import NIOCore

let options = Options.parseOrExit()
var configuration = HTTPClient.Configuration()
configuration.connectionPool = .init(
    idleTimeout: .seconds(60),
    concurrentHTTP1ConnectionsPerHostSoftLimit: options.clients + (options.queries ?? 11) + options.writers + 16)
let http = HTTPClient(eventLoopGroupProvider: .singleton, configuration: configuration)
/// The machine's load averages (1, 5 and 15 minutes), from /proc: the tail of a run follows them.
func loadAverage() -> String {
    let text = (try? String(contentsOfFile: "/proc/loadavg", encoding: .utf8)) ?? "?"
    return text.split(separator: " ").prefix(3).joined(separator: " ")
}

say(
    "ServerLoad: \(options.rows) rows, \(options.clients) stream clients"
        + (options.queries.map { " over \($0) queries" } ?? "")
        + (options.poll ? " + 1 poller (1 s)" : ", no poller")
        + ", \(options.rate) writes/s for \(options.seconds) s from \(options.writers) writers; "
        + "\(ProcessInfo.processInfo.activeProcessorCount) cores, load average \(loadAverage())"
)
var results: [RunResult] = []
var failed = false
for (executable, store) in options.server.flatMap({ name in options.stores.map { (name, $0) } }) {
    if options.server.count > 1 { say("\n\(executable):") }
    do {
        var thisRun = options
        thisRun.server = [executable]
        var result =
            if let count = options.idleStreams {
                try await idleStreams(count: count, options: thisRun, http: http)
            } else if options.balancer {
                try await behindBalancer(options: thisRun, http: http)
            } else if options.resume {
                try await resumeOnAnotherProcess(options: thisRun, http: http)
            } else {
                try await run(store, options: thisRun, http: http)
            }
        // Several servers in one table: each row names its framework.
        if options.server.count > 1 {
            result.name = (executable == "LiveResultsVaporServer" ? "Vapor: " : "Hummingbird: ") + result.name
        }
        failed = failed || !result.failures.isEmpty
        results.append(result)
    } catch {
        say("\n\(executable), \(store): FAILURE: \(error)")
        failed = true
    }
}
// The process exits next: no need to shut the client down.

/// `text` right-aligned in `width` columns.
func column(_ text: String, _ width: Int) -> String { String(repeating: " ", count: max(0, width - text.count)) + text }

print(
    "\n" + "store".padding(toLength: 32, withPad: " ", startingAt: 0) + column("sent→applied p50", 18)
        + column("p99", 12) + column("max", 12) + column("server CPU", 12) + column("CPU/write", 11)
        + column("RSS start/end/max", 24) + column("B/update", 10) + column("poll/stream", 13) + column("dropped", 9)
        + "  " + "replicas".padding(toLength: 12, withPad: " ", startingAt: 0) + "  SQL sample")

for result in results {
    print(
        // Wide enough for a delay of seconds and an RSS of gigabytes.
        result.name.padding(toLength: 32, withPad: " ", startingAt: 0) + column(milliseconds(result.p50), 18)
            + column(milliseconds(result.p99), 12) + column(milliseconds(result.max), 12)
            + String(
                format: " %7.2f s/s %7.2f ms %6.0f/%6.0f/%6.0f MB %9.0f %12.1f %8ld  ", result.cpuPerSecond,
                result.cpuPerWrite * 1000, Double(result.rssStart) / 1_048_576, Double(result.rssEnd) / 1_048_576,
                Double(result.rssMax) / 1_048_576, result.bytesPerUpdate, result.ratio, result.dropped)
            + result.equal.padding(toLength: 12, withPad: " ", startingAt: 0) + "  " + result.equalToSQL)
}
print(failed ? "\nFAILED" : "\nOK")
exit(failed ? 1 : 0)
