import BenchmarkSupport
import Foundation

// Measures each performance target pair (the core's, pagination's, the live views', the persisted results', the
// wire's, the windows' and the live queries') in this one process and prints them as a table of ratios.
// Unmet targets are reported, not failed: the exit status is 0 whenever the measurements ran.
//
//   swift run -c release Ratios            the full report (n = 10k / 100k / 1M)
//   swift run -c release Ratios --quick    a smoke run with smaller n, in well under a minute
//   swift run -c release Ratios fetch      only some groups: events, fetch, refetch, pages, views, windows, queries, relations, paths, memory,
//                                         cache, wire

guard let options = RatioOptions.parse(Array(CommandLine.arguments.dropFirst())) else {
    print(
        "usage: Ratios [--quick] [events] [fetch] [refetch] [pages] [views] [windows] [queries] [relations] [paths] [memory] [cache] [wire]"
    )
    exit(2)
}
#if DEBUG
    print("warning: this is a debug build; measure with `swift run -c release Ratios`")
#endif

let agreement = try await DesignAgreement.report()
var rows: [RatioRow] = []
if options.measures(.events) { rows += try await EventRatios(options: options).rows() }
if options.measures(.fetch) { rows.append(try await FetchRatios(options: options).initialFetch()) }
if options.measures(.refetch) { rows += try await FetchRatios(options: options).refetch() }
if options.measures(.pages) { rows.append(try await PageRatios(options: options).appendedPage()) }
if options.measures(.views) { rows += try await ViewRatios(options: options).rows() }
if options.measures(.windows) { rows += try await WindowRatios(options: options).rows() }
if options.measures(.queries) { rows += try await QueryRatios(options: options).rows() }
if options.measures(.relations) { rows += try await RelationRatios(options: options).rows() }
if options.measures(.paths) { rows += try await PathRatios(options: options).rows() }
if options.measures(.memory) { rows += try await MemoryRatios(options: options).rows() }
if options.measures(.cache) { rows += try await CacheRatios(options: options).rows() }
if options.measures(.wire) { rows += try await WireRatios(options: options).rows() }

print("LiveResults performance targets, measured in one run")
print("n = \(options.sizes); median of \(options.repetitions) repetitions after a warm-up;")
print("\(Dataset.sectionNames.count) sections; one SortDescriptor(\\Row.score); events in the mix 40% title update,")
print("20% score change, 10% section change, 15% insert, 15% delete.")
print(agreement)
print()
print(rows.table)
let checked = rows.compactMap { $0.target.isMet(by: $0.value) }
print()
print("\(checked.filter { $0 }.count) of \(checked.count) targets met")
