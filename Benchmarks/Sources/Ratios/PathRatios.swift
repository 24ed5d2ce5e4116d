import BenchmarkSupport
import Foundation
import LiveResults

/// The paths a user's events take to a controller, measured from a module of their own as a user's would be:
/// per single update at the medium size through an `EventBus` the controller observes, and through a
/// `LiveQueryRegistry` with one query and with 1,000 (an event reaching one), each against `apply` called from
/// that module, where the compiler specializes it. Generic code that runs unspecialized (compiled once in
/// `LiveResults`, called through type-erased subscribers) shows here as a ratio well above 1.
@MainActor
struct PathRatios {
    let options: RatioOptions

    func rows() async throws -> [RatioRow] {
        let size = Dataset.label(options.medium)
        Progress.say("single updates at \(size): apply here, through an EventBus, a registry of 1 query and of 1,000")
        let scenario = try await PathScenario(count: options.medium)
        let events = scenario.updates(options.liveEvents)
        let paths = PathScenario.Path.allCases
        let times = try await Stopwatch.medians(
            options.repetitions,
            of: paths.map { path in
                { await Stopwatch.measure { scenario.deliver(events, along: path) } / events.count }
            })
        let measured = zip(paths, times).map { "\($0.rawValue) \($1.formatted)" }.joined(separator: ", ")
        let names = [
            PathScenario.Path.bus: "an observed EventBus", .registry: "a registry of 1 query",
            .registryOfGroups: "a registry of \(PathScenario.groups) queries",
        ]
        return zip(paths, times).dropFirst().map { path, time in
            RatioRow(
                name: "A single update at \(size) through \(names[path]!) / apply here",
                measured: measured, value: time / times[0], unit: "×", target: .atMost(1.5))
        }
    }
}
