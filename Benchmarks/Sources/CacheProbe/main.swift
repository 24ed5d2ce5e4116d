import BenchmarkSupport
import Dispatch
import Foundation

// Applies the mixed event stream to a controller of n seeded rows, for `cachegrind.sh`: under valgrind's
// cachegrind the instruction counts and simulated cache misses vary by about 0.2% between runs, where
// wall-clock times on a shared machine vary by 20%.
//
//   CacheProbe n events generate     makes the events and applies none (the baseline to subtract)
//   CacheProbe n events events       applies each event as a batch of its own
//   CacheProbe n events snapshots    the same, taking a snapshot after each event
//   CacheProbe n events delegate     the same, observed by a delegate with per-item callbacks
//   CacheProbe n events changes      the same, observed by a `changes` sequence (read at the end)
//   CacheProbe n events observeChanges   the same, observed by an `observeChanges` handler
//   CacheProbe n events updates      the same, with an open `updates()` stream read after each event
//   CacheProbe n events updatesBase  opens the stream and reads its whole results, applies no events
//                                    (the baseline to subtract from `updates`)
//   CacheProbe n events noop-delegate         the same, observed by a delegate that does nothing
//   CacheProbe n events collapsible-delegate  the same, with the collapsible view of `Ratios views`
//                                    (`benchmarkView(of:)`) observed by a delegate that does nothing
//   CacheProbe n events tied         n items sorted by `[priority, id]` with ten priorities, each event
//                                    an update of one item's priority (`TiedSortScenario`)
//   CacheProbe n events tiedBase     loads those items and makes the events, applies none (the
//                                    baseline to subtract from `tied`)
//   CacheProbe n events paths-PATH   single updates along a path of `Ratios paths` (`PathScenario`: direct,
//                                    bus, registry, registry-groups)
//   CacheProbe n events pathsBase    loads those paths and makes the updates, delivers none (the baseline to
//                                    subtract from the paths)
//
// The main is synchronous, and the asynchronous fetch runs in a task it waits for: valgrind cannot run
// an `async` main.

/// A scenario, handed from the task that loads it to the main thread, which reads it only after the semaphore
/// says the task is done: `@unchecked Sendable` because that ordering is the semaphore's.
final class Loaded<Scenario>: @unchecked Sendable {
    var scenario: Scenario?
}

/// The scenario `load` makes, loaded in a task the main thread waits for.
func loaded<Scenario>(_ load: @escaping @Sendable () async throws -> Scenario) -> Scenario {
    let (box, done) = (Loaded<Scenario>(), DispatchSemaphore(value: 0))
    Task.detached {
        box.scenario = try await load()
        done.signal()
    }
    done.wait()
    return box.scenario!
}

let arguments = Array(CommandLine.arguments.dropFirst())
guard arguments.count == 3, let count = Int(arguments[0]), let eventCount = Int(arguments[1]),
    [
        "generate", "events", "snapshots", "updates", "updatesBase", "noop-delegate", "collapsible-delegate", "tied",
        "tiedBase", "pathsBase",
    ].contains(arguments[2])
        || ObserverKind(rawValue: arguments[2]) != nil
        || PathScenario.Path(rawValue: String(arguments[2].dropFirst("paths-".count))) != nil
else {
    print(
        "usage: CacheProbe n events generate|events|snapshots|delegate|changes|observeChanges|updates|updatesBase"
            + "|noop-delegate|collapsible-delegate|tied|tiedBase|paths-PATH|pathsBase")
    exit(2)
}
// The tied modes load a scenario of their own instead of the mixed one.
if arguments[2].hasPrefix("tied") {
    let tied = loaded { try await TiedSortScenario(count: count) }
    let events = tied.nextEvents(eventCount)
    print(arguments[2] == "tied" ? tied.applyEach(events) : events.count, arguments[2])
    exit(0)
}
// The paths modes load their own scenario too.
if arguments[2].hasPrefix("paths") {
    let paths = loaded { try await PathScenario(count: count) }
    let updates = paths.updates(eventCount)
    if let path = PathScenario.Path(rawValue: String(arguments[2].dropFirst("paths-".count))) {
        paths.deliver(updates, along: path)
    }
    print(updates.count, arguments[2])
    exit(0)
}
let scenario = loaded { try await EventScenario<LiveResultsDesign>(count: count) }
let events = scenario.nextEvents(eventCount)
switch arguments[2] {
case "events": print(scenario.applyEach(events), "changes")
case "snapshots": print(scenario.applyEachTakingSnapshots(events), "changes")
case "generate": print(events.count, "events")
case "noop-delegate":
    let delegate = NoOpDelegate()
    scenario.design.controller.delegate = delegate
    print(scenario.applyEach(events), "changes")
    withExtendedLifetime(delegate) {}
case "collapsible-delegate":
    let (view, delegate) = (benchmarkView(of: scenario.design.controller), NoOpDelegate())
    view.delegate = delegate
    print(scenario.applyEach(events), "changes")
    withExtendedLifetime((view, delegate)) {}
case "updates", "updatesBase":
    // The stream is read in a task (its `next()` is asynchronous), which the main thread waits for.
    let applies = arguments[2] == "updates"
    let handed = Loaded<EventScenario<LiveResultsDesign>>()
    handed.scenario = scenario
    let read = loaded {
        let scenario = handed.scenario!
        let updates = scenario.design.controller.updates().makeAsyncIterator()
        _ = await updates.next()
        var read = 0
        if applies {
            for event in events where scenario.design.apply([event]) > 0 {
                if await updates.next() != nil { read += 1 }
            }
        }
        return read
    }
    print(read, "updates")
default:
    let observer = AttachedObserver(ObserverKind(rawValue: arguments[2])!, of: scenario.design.controller)
    print(scenario.applyEach(events), "changes")
    withExtendedLifetime(observer) {}
}
