import BenchmarkSupport
import LiveResults

/// The event targets: mixed single events against the baselines, scaling with n, and snapshots.
@MainActor
struct EventRatios {
    let options: RatioOptions

    func rows() async throws -> [RatioRow] {
        try await mixedEvents() + scalingAndSnapshots()
    }

    private func mixedEvents() async throws -> [RatioRow] {
        let (count, size) = (options.medium, Dataset.label(options.medium))
        Progress.say("mixed single events at \(size): LiveResults, (a), (b)")
        let live = try await EventScenario<LiveResultsDesign>(count: count)
        let resort = try await EventScenario<ResortDiffBaseline>(count: count)
        let arrays = try await EventScenario<SortedArraysBaseline>(count: count)
        let times = try await Stopwatch.medians(
            options.repetitions,
            of: [
                perEvent(in: live, events: options.liveEvents),
                perEvent(in: resort, events: options.baselineEvents),
                perEvent(in: arrays, events: options.baselineEvents),
            ])
        let measured = "LiveResults \(times[0].formatted), (a) \(times[1].formatted), (b) \(times[2].formatted)"
        return [
            RatioRow(
                name: "Mixed single events at \(size): (a) re-sort+diff / LiveResults",
                measured: measured, value: times[1] / times[0], unit: "×", target: .atLeast(5000)),
            RatioRow(
                name: "Mixed single events at \(size): (b) sorted arrays+table / LiveResults",
                measured: measured, value: times[2] / times[0], unit: "×", target: .atLeast(1000)),
        ]
    }

    /// Per-event time at the small and the large size, and at the large size with a snapshot after each
    /// event, on a second controller with the same rows and the same events as the plain loop.
    private func scalingAndSnapshots() async throws -> [RatioRow] {
        let (small, large) = (Dataset.label(options.small), Dataset.label(options.large))
        Progress.say("per-event time at \(small) and \(large), with and without snapshots")
        let atSmall = try await EventScenario<LiveResultsDesign>(count: options.small)
        let atLarge = try await EventScenario<LiveResultsDesign>(count: options.large)
        let withSnapshots = try await EventScenario<LiveResultsDesign>(count: options.large)
        let times = try await Stopwatch.medians(
            options.repetitions,
            of: [
                perEvent(in: atSmall, events: options.liveEvents),
                perEvent(in: atLarge, events: options.liveEvents),
                perEvent(in: withSnapshots, events: options.liveEvents) { withSnapshots.applyEachTakingSnapshots($0) },
            ])
        return [
            RatioRow(
                name: "Per-event time at \(large) / at \(small)",
                measured: "\(times[1].formatted) at \(large), \(times[0].formatted) at \(small)",
                value: times[1] / times[0], unit: "×", target: .atMost(2)),
            RatioRow(
                name: "Snapshot after every event at \(large) / plain loop",
                measured: "\(times[2].formatted) with, \(times[1].formatted) without",
                value: times[2] / times[1], unit: "×", target: .atMost(1.5)),
        ]
    }

    /// A measurement of the time per event of applying `events` new events, by default as single-event
    /// batches.
    private func perEvent<Design>(
        in scenario: EventScenario<Design>,
        events: Int,
        apply: (([EntityEvent<Row>]) -> Int)? = nil
    ) -> Stopwatch.Measurement {
        {
            let batch = scenario.nextEvents(events)
            return await Stopwatch.measure { apply?(batch) ?? scenario.applyEach(batch) } / events
        }
    }
}
