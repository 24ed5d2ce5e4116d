import BenchmarkSupport
import Foundation

// The soak: one controller driven through every capability at once, checked at every
// delivery and after every step, its resident memory sampled as it goes.
//
//   swift run -c release Soak --events N --seed S      defaults: 100000 events, seed 1
//
// Exits 1 on the first violation (printing the seed and the step, to replay) or when resident memory
// grows more than 10% after the warm-up (the first fifth of the run).

var options = Soak.Options()
var arguments = Array(CommandLine.arguments.dropFirst())
while !arguments.isEmpty {
    let flag = arguments.removeFirst()
    guard let value = arguments.first else {
        print("usage: Soak [--events N] [--seed S]")
        exit(2)
    }
    arguments.removeFirst()
    switch flag {
    case "--events": options.events = Int(value.replacingOccurrences(of: "_", with: "")) ?? options.events
    case "--seed": options.seed = UInt64(value) ?? options.seed
    default:
        print("usage: Soak [--events N] [--seed S]")
        exit(2)
    }
}
#if DEBUG
    print("warning: this is a debug build; soak with `swift run -c release Soak`")
#endif

let start = ContinuousClock.now
let report: Soak.Report
do {
    report = try await Soak(options: options).run()
} catch {
    print("VIOLATION (seed \(options.seed)): \(error)")
    print("replay: swift run -c release Soak --events \(options.events) --seed \(options.seed)")
    exit(1)
}
let seconds = start.duration(to: .now)
let megabytes = { (bytes: Int) in String(format: "%.1f MB", Double(bytes) / 1_048_576) }
print("soak: seed \(options.seed), \(report.events) events in \(report.steps) steps, \(seconds)")
print("checked: \(report.deliveries) deliveries against each observer's previous snapshot, the results against")
print("the reference after every step; 0 violations")
print(report.counts.sorted { $0.key < $1.key }.map { "\($0.key) \($0.value)" }.joined(separator: ", "))
print("resident memory: " + report.samples.map { "\(megabytes($0.bytes)) at \($0.events)" }.joined(separator: ", "))
let warmUp = options.events / 5
if let baseline = report.samples.first(where: { $0.events >= warmUp }) {
    let peak = report.samples.filter { $0.events >= baseline.events }.map(\.bytes).max() ?? baseline.bytes
    let growth = Double(peak - baseline.bytes) / Double(baseline.bytes)
    print(
        "after the warm-up: \(megabytes(baseline.bytes)) → peak \(megabytes(peak)) (\(String(format: "%+.1f", growth * 100)) %)"
    )
    if growth > 0.10 {
        print("FAIL: resident memory grew more than 10 % after the warm-up (seed \(options.seed))")
        exit(1)
    }
}
