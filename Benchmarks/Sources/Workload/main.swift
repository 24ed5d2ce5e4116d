import BenchmarkSupport
import LiveResults
import Foundation

// Runs one LiveResults workload of the benchmarks by itself, for profilers: under
// `valgrind --tool=callgrind` or `perf record`, the report shows the workload and little else.
//
//   swift run -c release Workload events [n] [events]      single events of the mix (default 100k, 20k)
//   swift run -c release Workload snapshots [n] [events]   the same, taking a snapshot after each event
//   swift run -c release Workload collapsible [n] [events] the same, with a CollapsibleSections view
//   swift run -c release Workload delegate [n] [events]    the same, with a delegate that does nothing
//   swift run -c release Workload collapsible-delegate …   with a view, and such a delegate of the view
//   swift run -c release Workload resume [n] [rounds] [k]  pause, k events, resume (default 1M, 20k, 1)
//   swift run -c release Workload fetch [n]                one initial fetch (default 1M)
//   swift run -c release Workload refetch [n] [times]      refetches (default 100k, once)
//   swift run -c release Workload lookups [n] [lookups]    chains of lookups by id (default 1M, 1M)
//   swift run -c release Workload memory                   this machine's memory latencies (MemoryLatency)
//   swift run -c release Workload cold-start [n] [times]   cold starts from a results file (default 100k, 10)
//   swift run -c release Workload decode-fetch [n] [times] their reference: JSONDecoder + a fetch (same defaults)
//   swift run -c release Workload paths PATH [n] [events]  single updates along a path of `Ratios paths` (direct,
//                                                          bus, registry, registry-groups; default 100k, 20k)

/// CPU time by `clock`: the calling thread's (`CLOCK_THREAD_CPUTIME_ID`), which unlike the wall clock
/// does not count time spent waiting for a core on a busy machine, or the process's
/// (`CLOCK_PROCESS_CPUTIME_ID`), for work that runs on the controller's threads, like a refetch.
func cpuSeconds(_ clock: clockid_t) -> Double {
    var time = timespec()
    clock_gettime(clock, &time)
    return Double(time.tv_sec) + Double(time.tv_nsec) * 1e-9
}

let arguments = Array(CommandLine.arguments.dropFirst())
let numbers = arguments.dropFirst().compactMap { Int($0) }
func number(_ index: Int, default value: Int) -> Int {
    index < numbers.count ? numbers[index] : value
}

switch arguments.first {
case "events", "snapshots", "collapsible", "delegate", "collapsible-delegate":
    let scenario = try await EventScenario<LiveResultsDesign>(count: number(0, default: 100_000))
    let view = arguments[0].hasPrefix("collapsible") ? CollapsibleSections(scenario.design.controller) : nil
    let delegate = NoOpDelegate()
    if arguments[0] == "delegate" { scenario.design.controller.delegate = delegate }
    if arguments[0] == "collapsible-delegate" { view?.delegate = delegate }
    defer { withExtendedLifetime((view, delegate)) {} }
    let events = scenario.nextEvents(number(1, default: 20_000))
    let (start, startCPU) = (ContinuousClock.now, cpuSeconds(CLOCK_THREAD_CPUTIME_ID))
    let changes = arguments[0] == "snapshots" ? scenario.applyEachTakingSnapshots(events) : scenario.applyEach(events)
    let cpuPerEvent = (cpuSeconds(CLOCK_THREAD_CPUTIME_ID) - startCPU) / Double(events.count)
    let perEvent = start.duration(to: .now) / events.count
    print("\(events.count) events, \(changes) changes, \(perEvent) per event, CPU \(cpuPerEvent * 1e6) µs per event")
case "resume":
    // Pause, one event, resume: the catch-up change set of a single event, many times over.
    let scenario = try await EventScenario<LiveResultsDesign>(count: number(0, default: 1_000_000))
    let controller = scenario.design.controller
    let (rounds, count) = (number(1, default: 20_000), number(2, default: 1))
    var (changes, resumeTime) = (0, Duration.zero)
    for _ in 0..<rounds {
        let events = scenario.nextEvents(count)
        controller.pause()
        scenario.applyEach(events)
        let start = ContinuousClock.now
        changes &+= controller.resume().insertedItems.count
        resumeTime += start.duration(to: .now)
    }
    print("\(rounds) resumes after \(count) events, \(resumeTime / rounds) per resume (\(changes))")
case "fetch":
    let scenario = FetchScenario(count: number(0, default: 1_000_000))
    let start = ContinuousClock.now
    let design = try await scenario.fetch()
    print("fetched \(design.controller.fetchedObjects.count) in \(start.duration(to: .now))")
case "refetch":
    let scenario = try await RefetchScenario(count: number(0, default: 100_000))
    let times = max(number(1, default: 1), 1)
    let (start, startCPU) = (ContinuousClock.now, cpuSeconds(CLOCK_PROCESS_CPUTIME_ID))
    var changes = try await scenario.refetch()
    for _ in 1..<times { changes = try await scenario.refetch() }
    let cpuPerRefetch = (cpuSeconds(CLOCK_PROCESS_CPUTIME_ID) - startCPU) / Double(times)
    print(
        "refetch: \(changes.movedItems.count) moves, \(changes.insertedItems.count) inserts, "
            + "\(start.duration(to: .now) / times) each, CPU \(cpuPerRefetch * 1e6) µs each"
    )
case "lookups":
    let result = try await LookupChase.run(count: number(0, default: 1_000_000), lookups: number(1, default: 1_000_000))
    print(
        "ns per lookup: object(withID:) \(result.object), indexPath(forID:) \(result.indexPath), "
            + "[Int: Row] \(result.dictionary)"
    )
case "memory":
    let report = MemoryLatency.measure()
    print(
        "ns per dependent load \(report.dependentLoad), per independent load \(report.independentLoad), "
            + "per retain of a cold object \(report.coldRetain)"
    )
case "cold-start", "decode-fetch":
    let scenario = try await CacheScenario(count: number(0, default: 100_000))
    defer { scenario.removeFiles() }
    let times = max(number(1, default: 10), 1)
    let start = ContinuousClock.now
    var shown = 0
    for _ in 0..<times {
        let controller =
            arguments[0] == "cold-start" ? try await scenario.coldStart() : try await scenario.decodeAndFetch()
        shown &+= controller.snapshot.count
    }
    print("\(arguments[0]): \(shown / times) rows, \(start.duration(to: .now) / times) each")
case "paths":
    guard arguments.count > 1, let path = PathScenario.Path(rawValue: arguments[1]) else {
        print("usage: Workload paths direct|bus|registry|registry-groups [n] [events]")
        exit(2)
    }
    let scenario = try await PathScenario(count: number(0, default: 100_000))
    let events = scenario.updates(number(1, default: 20_000))
    let startCPU = cpuSeconds(CLOCK_THREAD_CPUTIME_ID)
    scenario.deliver(events, along: path)
    let cpuPerEvent = (cpuSeconds(CLOCK_THREAD_CPUTIME_ID) - startCPU) / Double(events.count)
    print("\(events.count) updates along \(path.rawValue), CPU \(cpuPerEvent * 1e6) µs per event")
default:
    print("usage: Workload events|snapshots|fetch|refetch|lookups|memory|cold-start|decode-fetch|paths [n] [events]")
    exit(2)
}
