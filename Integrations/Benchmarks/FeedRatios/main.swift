// A single-row update of a to-do at 100,000, through a PostgreSQL change feed's reading path, against `apply` called
// from this module (where the compiler specializes it): the `Ratios paths` row of the feed, target ≤ 1.5×.
//
//   swift run -c release FeedRatios [--quick]
//
// The updates reach the feed as the `pgoutput` messages PostgreSQL 15 sends (PgOutputWriter, checked against a
// recording), read by the feed's own code through `_FeedReplay` (its package door: parsing, the transaction, the
// subscription, the table's row decoding, the controller's apply), with no server in the loop. Each path gets
// updates of its own, alike; each round measures every path in turn (after one untimed round), and the report takes
// the medians. The value is CPU time (every thread of the process) per update: the feed's delivery may run on a task of
// its own, and on a machine shared with other work the wall time (shown beside it) measures the others too.
// `--quick` is the smoke run: 2,000 to-dos, 200 updates.

import Foundation
import LiveResults

/// The wall and CPU time of something.
struct Cost {
    var wall: Duration
    var cpu: Duration

    static func of(_ body: () async throws -> Void) async rethrows -> Cost {
        let (start, cpuStart) = (ContinuousClock.now, processCPUTime())
        try await body()
        return Cost(wall: start.duration(to: .now), cpu: processCPUTime() - cpuStart)
    }

    /// The CPU time of every thread of the process so far.
    private static func processCPUTime() -> Duration {
        var time = timespec()
        clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &time)
        return .seconds(time.tv_sec) + .nanoseconds(time.tv_nsec)
    }
}

extension Duration {
    var microseconds: Double { Double(components.seconds) * 1e6 + Double(components.attoseconds) * 1e-12 }
}

/// Runs `body`, ending the process if it takes longer than `limit`: a delivery that never reached the controller
/// would otherwise hang the run.
func withWatchdog<Result>(_ limit: Duration, _ body: () async throws -> Result) async rethrows -> Result {
    let watchdog = Task {
        try await Task.sleep(for: limit)
        fatalError("a measurement took longer than \(limit)")
    }
    defer { watchdog.cancel() }
    return try await body()
}

/// Every round's cost of each path: `updates` updates of `entities` to-dos, `rounds` rounds after one to warm up.
///
/// On the cooperative pool, as the feed's reading task is: a delivery's task may run on the thread that awaits it.
@concurrent func measure(entities: Int, updates: Int, rounds: Int) async throws -> [FeedScenario.Path: [Cost]] {
    try PgOutputWriter.checkAgainstRecording()
    let scenario = try await FeedScenario(count: entities)
    var costs: [FeedScenario.Path: [Cost]] = [:]
    for round in 0...rounds {
        for path in FeedScenario.Path.allCases {
            let todos = scenario.updates(updates)
            // Only the feed's paths read messages: the Relation message goes in the first transaction read.
            let transactions = path == .direct ? [] : scenario.transactions(todos)
            let cost = try await withWatchdog(.seconds(120)) {
                try await Cost.of { try await scenario.deliver(todos, as: transactions, along: path) }
            }
            if path != .direct { try scenario.check(todos) }
            if round > 0 { costs[path, default: []].append(cost) }
        }
    }
    return costs
}

let quick = CommandLine.arguments.contains("--quick")
let (entities, updates, rounds) = quick ? (2_000, 200, 3) : (100_000, 20_000, 11)
let load = (try? String(contentsOfFile: "/proc/loadavg", encoding: .utf8))?.split(separator: " ").prefix(3)
print(
    "FeedRatios: \(entities) to-dos, \(updates) single-row updates per path and round, \(rounds) rounds"
        + (load.map { "; load average \($0.joined(separator: " "))" } ?? ""))
let costs = try await measure(entities: entities, updates: updates, rounds: rounds)

/// The median CPU and wall time per update along `path`, in microseconds.
func median(_ costs: [Cost]) -> (cpu: Double, wall: Double) {
    func middle(_ values: [Double]) -> Double { values.sorted()[values.count / 2] }
    return (
        middle(costs.map { $0.cpu.microseconds / Double(updates) }),
        middle(costs.map { $0.wall.microseconds / Double(updates) })
    )
}

let direct = median(costs[.direct]!)
let size = entities >= 1_000 ? "\(entities / 1_000)k" : "\(entities)"
let names: [FeedScenario.Path: String] = [
    .feed: "A single-row update at \(size) through the feed's decoding, one transaction at a time / apply here",
    .handOver: "The same, \(updates) transactions handed over together (info) / apply here",
]
func figure(_ value: Double) -> String { String(format: value < 10 ? "%.2f µs" : "%.1f µs", value) }
let rows = [FeedScenario.Path.feed, .handOver].map { path -> [String] in
    let time = median(costs[path]!)
    let ratio = time.cpu / direct.cpu
    let isTarget = path == .feed
    return [
        names[path]!,
        "apply \(figure(direct.cpu)), feed \(figure(time.cpu)) CPU (wall \(figure(direct.wall)), \(figure(time.wall)))",
        String(format: "%.2f×", ratio), isTarget ? "≤ 1.5×" : "(info)",
        isTarget ? (ratio <= 1.5 ? "PASS" : "FAIL") : "",
    ]
}
let header = ["Target pair", "Measured", "Value", "Target", "Result"]
let widths = header.indices.map { column in ([header] + rows).map { $0[column].count }.max()! }
let rule = widths.map { String(repeating: "-", count: $0) }
for line in [header, rule] + rows {
    let padded = zip(line, widths).map { $0 + String(repeating: " ", count: $1 - $0.count) }
    print(padded.joined(separator: "  ").trimmingCharacters(in: .whitespaces))
}
