import BenchmarkSupport

/// The sizes and repetitions of one report.
struct RatioOptions {
    /// The entity counts of the targets: 10k, 100k and 1M in the full report.
    var small: Int
    var medium: Int
    var large: Int
    /// Timed repetitions of each measurement, after one untimed warm-up; the report takes the median.
    var repetitions: Int
    /// Events per repetition for LiveResults, and for the baselines (which take milliseconds each).
    var liveEvents: Int
    var baselineEvents: Int

    /// The report that checks the targets, at the sizes.
    static let full = RatioOptions(
        small: 10_000, medium: 100_000, large: 1_000_000, repetitions: 11, liveEvents: 20_000, baselineEvents: 5)

    /// A smoke run for CI: smaller sizes and fewer repetitions, in well under a minute.
    static let quick = RatioOptions(
        small: 2_000, medium: 20_000, large: 100_000, repetitions: 3, liveEvents: 2_000, baselineEvents: 3)

    /// The options `arguments` ask for: `--quick`, or the full report.
    static func parse(_ arguments: [String]) -> RatioOptions? {
        switch arguments {
        case []: full
        case ["--quick"]: quick
        default: nil
        }
    }

    var sizes: String {
        [small, medium, large].map(Dataset.label).joined(separator: " / ")
    }
}
