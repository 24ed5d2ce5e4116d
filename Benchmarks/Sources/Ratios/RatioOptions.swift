import BenchmarkSupport

/// The sizes, repetitions and groups of targets of one report.
struct RatioOptions {
    /// A group of targets that can be measured alone, named on the command line.
    enum Group: String, CaseIterable {
        case events, fetch, refetch, pages, views, windows, queries, relations, paths, memory, cache, wire
    }

    /// The entity counts of the targets: 10k, 100k and 1M in the full report.
    var small: Int
    var medium: Int
    var large: Int
    /// Timed repetitions of each measurement, after one untimed warm-up; the report takes the median.
    var repetitions: Int
    /// Events per repetition for LiveResults, and for the baselines (which take milliseconds each).
    var liveEvents: Int
    var baselineEvents: Int
    /// The groups of targets to measure: all of them unless the command line names some.
    var groups = Set(Group.allCases)
    /// Whether this is the smoke run.
    var isQuick = false

    /// The report that checks the targets, at the sizes.
    static let full = RatioOptions(
        small: 10_000, medium: 100_000, large: 1_000_000, repetitions: 11, liveEvents: 20_000, baselineEvents: 5)

    /// A smoke run for CI: smaller sizes and fewer repetitions, in well under a minute.
    static let quick = RatioOptions(
        small: 2_000, medium: 20_000, large: 100_000, repetitions: 3, liveEvents: 2_000, baselineEvents: 3)

    /// The options `arguments` ask for: `--quick` for the smoke sizes, then the groups to measure
    /// (`events`, `fetch`, `refetch`, `pages`, `views`, `windows`, `queries`, `relations`, `paths`, `memory`, `cache`, `wire`; all when
    /// none is named).
    static func parse(_ arguments: [String]) -> RatioOptions? {
        var options = arguments.first == "--quick" ? quick : full
        options.isQuick = arguments.first == "--quick"
        let names = arguments.drop { $0 == "--quick" }
        let groups = names.compactMap(Group.init(rawValue:))
        guard groups.count == names.count else { return nil }
        if !groups.isEmpty { options.groups = Set(groups) }
        return options
    }

    /// Whether the report measures `group`.
    func measures(_ group: Group) -> Bool {
        groups.contains(group)
    }

    var sizes: String {
        [small, medium, large].map(Dataset.label).joined(separator: " / ")
    }
}
