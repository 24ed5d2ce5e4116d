// Write-to-delivered latency of GRDBLiveTable against GRDB's ValueObservation, over the same on-disk WAL
// database (a DatabasePool in a temporary folder), in one run.
//
//   swift run -c release --package-path Integrations GRDBLatency [--rows N] [--updates U] [--observations V]
//
// A table of N players (100,000), with an index on the score, is followed by a FetchedResultsController
// (sorted by score descending, then id) through GRDBLiveTable, and by a ValueObservation of the same query.
// 1. Single-row updates: the time from the start of the write to the delivered change set (LiveResults, U
//    updates) or to the delivered value (ValueObservation, V updates: each costs a refetch of N records).
// 2. One transaction of 1,000 single-row updates, the same way.
// Only one of the two observes at a time, so neither slows the other down.
import ArgumentParser
import Foundation
import GRDB
import LiveResults
import LiveResultsGRDB
import NIOConcurrencyHelpers

struct Player: Codable, FetchableRecord, PersistableRecord, FetchableEntity {
    var id: Int64
    var name: String
    var team: String
    var score: Int
}

/// The command line, read with swift-argument-parser (`--help` lists it; a bad value exits with status 64).
struct Options: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "GRDBLatency",
        abstract: "Write-to-delivered latency of GRDBLiveTable against GRDB's ValueObservation.")

    @Option(help: "Players in the table.")
    var rows = 100_000
    @Option(help: "Single-row updates timed through LiveResults.")
    var updates = 500
    @Option(help: "Single-row updates timed through ValueObservation (each a refetch of every row).")
    var observations = 10

    func validate() throws {
        if rows < 1 { throw ValidationError("--rows wants a whole number above 0, not \(rows)") }
        for (name, value) in [("--updates", updates), ("--observations", observations)] where value < 0 {
            throw ValidationError("\(name) wants a whole number, 0 or more, not \(value)")
        }
    }
}

/// Counts deliveries, and lets the writer wait for the next one (a bounded wait).
final class Deliveries: Sendable {
    private let count = NIOLockedValueBox(0)
    private let signal = DispatchSemaphore(value: 0)

    func delivered() {
        count.withLockedValue { $0 += 1 }
        signal.signal()
    }

    /// Waits for one delivery; false after 60 seconds.
    func next() -> Bool {
        signal.wait(timeout: .now() + 60) == .success
    }
}

func seconds(_ duration: Duration) -> Double {
    Double(duration.components.seconds) + Double(duration.components.attoseconds) / 1e18
}

func summary(_ samples: [Double]) -> (median: Double, p90: Double) {
    let sorted = samples.sorted()
    guard !sorted.isEmpty else { return (.nan, .nan) }
    return (sorted[sorted.count / 2], sorted[min(sorted.count - 1, sorted.count * 9 / 10)])
}

func format(_ value: Double) -> String {
    value < 1e-3 ? String(format: "%.1f µs", value * 1e6) : String(format: "%.2f ms", value * 1e3)
}

/// The durations of the writes alone (the write returns at commit, after the observers' commit callbacks).
nonisolated(unsafe) var writeSamples: [String: [Double]] = [:]

/// Times `write` followed by the delivery it causes, `count` times.
func measure(
    _ name: String, _ count: Int, _ deliveries: Deliveries, _ write: (Int) throws -> Void
) throws -> [Double] {
    let clock = ContinuousClock()
    var samples: [Double] = []
    for index in 0..<count {
        let start = clock.now
        try write(index)
        writeSamples[name, default: []].append(seconds(clock.now - start))
        guard deliveries.next() else {
            print("error: no delivery within 60 s")
            exit(1)
        }
        samples.append(seconds(clock.now - start))
    }
    return samples
}

let options = Options.parseOrExit()
let folder = FileManager.default.temporaryDirectory.appendingPathComponent("grdb-latency-\(UUID().uuidString)")
try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
defer { try? FileManager.default.removeItem(at: folder) }
let pool = try DatabasePool(path: folder.appendingPathComponent("db.sqlite").path)
print("GRDB \(options.rows) rows, on-disk WAL database (DatabasePool) in \(folder.path)")
try pool.write { db in
    try db.execute(
        sql: """
            CREATE TABLE player (id INTEGER PRIMARY KEY, name TEXT NOT NULL, team TEXT NOT NULL, score INTEGER NOT NULL);
            CREATE INDEX player_score ON player(score DESC, id);
            """)
    for id in 1...options.rows {
        try Player(id: Int64(id), name: "player \(id)", team: "team \(id % 20)", score: id % 10_000).insert(db)
    }
}
var random = SystemRandomNumberGenerator()
let rowIDs = (0..<max(options.updates, 1_000)).map { _ in Int64.random(in: 1...Int64(options.rows), using: &random) }
// Each write adds one of these to a score (modulo 10,000), so that it always changes the row: a controller
// publishes nothing for a record written back unchanged, and the benchmark would wait for a delivery.
let deltas = rowIDs.map { _ in Int.random(in: 1..<10_000, using: &random) }

func updateOne(_ index: Int) throws {
    try pool.write { db in
        try db.execute(
            sql: "UPDATE player SET score = (score + ?) % 10000 WHERE id = ?",
            arguments: [deltas[index % deltas.count], rowIDs[index % rowIDs.count]])
    }
}

func updateThousand(_ round: Int) throws {
    try pool.write { db in
        for index in 0..<1_000 {
            try db.execute(
                sql: "UPDATE player SET score = (score + ?) % 10000 WHERE id = ?",
                arguments: [(deltas[index] + round) % 9_999 + 1, rowIDs[index]])
        }
    }
}

// The same single-row writes with nothing observing: the floor under both.
var unobservedSamples: [Double] = []
for index in 0..<options.updates {
    let start = ContinuousClock.now
    try updateOne(index)
    unobservedSamples.append(seconds(ContinuousClock.now - start))
}
print("Single-row update with nothing observing: median \(format(summary(unobservedSamples).median))")

// LiveResults
let table = GRDBLiveTable<Player>(pool)
let controller = FetchedResultsController(
    definition: table.fetchDefinition(),
    sortDescriptors: [SortDescriptor(\Player.score, order: .reverse), SortDescriptor(\Player.id)])
let liveDeliveries = Deliveries()
let (_, changesSubscription) = controller.observeChanges { _, _ in liveDeliveries.delivered() }
let subscription = controller.observe(table)
let fetchStart = ContinuousClock.now
let fetched = NIOLockedValueBox<(any Error)?>(nil)
let fetchDone = DispatchSemaphore(value: 0)
Task.detached {
    do { try await controller.performFetch() } catch { fetched.withLockedValue { $0 = error } }
    fetchDone.signal()
}
guard fetchDone.wait(timeout: .now() + 120) == .success, fetched.withLockedValue({ $0 }) == nil else {
    print("error: the first fetch failed: \(fetched.withLockedValue { $0 }.map { "\($0)" } ?? "timeout")")
    exit(1)
}
_ = liveDeliveries.next()  // the fetch's change set
print(
    "LiveResults first fetch: \(format(seconds(ContinuousClock.now - fetchStart))), \(controller.fetchedObjects.count) players"
)
let liveSingle = try measure("live single", options.updates, liveDeliveries, updateOne)
let liveThousand = try measure("live thousand", 5, liveDeliveries, updateThousand)
subscription.cancel()
changesSubscription.cancel()

// ValueObservation
let observationDeliveries = Deliveries()
let observation = ValueObservation.tracking { db in
    try Player.order(Column("score").desc, Column("id")).fetchAll(db)
}
let cancellable = observation.start(
    in: pool, scheduling: .async(onQueue: DispatchQueue(label: "GRDBLatency.observation")),
    onError: { error in
        print("error: \(error)")
        exit(1)
    },
    onChange: { _ in observationDeliveries.delivered() })
_ = observationDeliveries.next()  // the first value
let observedSingle = try measure("observed single", options.observations, observationDeliveries, updateOne)
let observedThousand = try measure("observed thousand", 3, observationDeliveries, { try updateThousand(100 + $0) })
cancellable.cancel()

func report(_ title: String, _ names: (String, String), _ live: [Double], _ observed: [Double]) {
    let (liveMedian, liveP90) = summary(live)
    let (observedMedian, observedP90) = summary(observed)
    print(title)
    print("  LiveResults       median \(format(liveMedian)), p90 \(format(liveP90))  (\(live.count) samples)")
    print(
        "  ValueObservation  median \(format(observedMedian)), p90 \(format(observedP90))  (\(observed.count) samples)")
    print(String(format: "  ratio (medians)   %.0f×", observedMedian / liveMedian))
    let liveWrite = summary(writeSamples[names.0] ?? []).median
    let observedWrite = summary(writeSamples[names.1] ?? []).median
    print(
        "  the write alone   median \(format(liveWrite)) (LiveResults observing), \(format(observedWrite)) (ValueObservation)"
    )
}
report("Single-row update, write → delivered:", ("live single", "observed single"), liveSingle, observedSingle)
report(
    "Transaction of 1,000 updates, write → delivered:", ("live thousand", "observed thousand"), liveThousand,
    observedThousand)
