import BenchmarkSupport
import LiveResults

/// The event targets: mixed single events against the baselines, scaling with n, and snapshots.
@MainActor
struct EventRatios {
    let options: RatioOptions

    func rows() async throws -> [RatioRow] {
        try await mixedEvents() + observed() + scalingAndSnapshots()
    }

    /// The headline pair at the medium size, against LiveResults unobserved and observed by a delegate
    /// with per-item callbacks (what users run).
    private func mixedEvents() async throws -> [RatioRow] {
        let (count, size) = (options.medium, Dataset.label(options.medium))
        Progress.say("mixed single events at \(size): LiveResults unobserved and observed, (a), (b)")
        let live = try await EventScenario<LiveResultsDesign>(count: count)
        let watched = try await EventScenario<LiveResultsDesign>(count: count)
        let observer = AttachedObserver(.delegate, of: watched.design.controller)
        let resort = try await EventScenario<ResortDiffBaseline>(count: count)
        let arrays = try await EventScenario<SortedArraysBaseline>(count: count)
        let times = try await Stopwatch.medians(
            options.repetitions,
            of: [
                perEvent(in: live, events: options.liveEvents),
                perEvent(in: watched, events: options.liveEvents),
                perEvent(in: resort, events: options.baselineEvents),
                perEvent(in: arrays, events: options.baselineEvents),
            ])
        withExtendedLifetime(observer) {}
        let measured =
            "LiveResults \(times[0].formatted), observed \(times[1].formatted), (a) \(times[2].formatted), "
            + "(b) \(times[3].formatted)"
        return [
            RatioRow(
                name: "Mixed single events at \(size): (a) re-sort+diff / LiveResults",
                measured: measured, value: times[2] / times[0], unit: "×", target: .atLeast(5000)),
            RatioRow(
                name: "Mixed single events at \(size): (b) sorted arrays+table / LiveResults",
                measured: measured, value: times[3] / times[0], unit: "×", target: .atLeast(1000)),
            RatioRow(
                name: "Mixed single events at \(size): (a) re-sort+diff / LiveResults observed",
                measured: measured, value: times[2] / times[1], unit: "×", target: .atLeast(5000)),
            RatioRow(
                name: "Mixed single events at \(size): (b) sorted arrays+table / LiveResults observed",
                measured: measured, value: times[3] / times[1], unit: "×", target: .atLeast(1000)),
        ]
    }

    /// Single events at the medium size with one observer of each kind, against the same events on a
    /// controller nobody observes (at most 1.3×).
    private func observed() async throws -> [RatioRow] {
        let (count, size) = (options.medium, Dataset.label(options.medium))
        Progress.say("single events at \(size), unobserved and with one observer of each kind")
        let plain = try await EventScenario<LiveResultsDesign>(count: count)
        var scenarios: [EventScenario<LiveResultsDesign>] = []
        var observers: [AttachedObserver] = []
        for kind in ObserverKind.allCases {
            let scenario = try await EventScenario<LiveResultsDesign>(count: count)
            scenarios.append(scenario)
            observers.append(AttachedObserver(kind, of: scenario.design.controller))
        }
        let times = try await Stopwatch.medians(
            options.repetitions,
            of: [perEvent(in: plain, events: options.liveEvents, observedBy: nil)]
                + zip(scenarios, observers).map { perEvent(in: $0, events: options.liveEvents, observedBy: $1) })
        return zip(observers, times.dropFirst()).map { observer, time in
            RatioRow(
                name: "Single events at \(size), observed by \(observer.kind.label) / unobserved",
                measured: "\(time.formatted) observed, \(times[0].formatted) not",
                value: time / times[0], unit: "×", target: .atMost(1.3))
        }
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

    /// The same for a controller with or without an observer; then, outside the measurement, reads what a
    /// `changes` observer was sent.
    private func perEvent(
        in scenario: EventScenario<LiveResultsDesign>, events: Int, observedBy observer: AttachedObserver?
    ) -> Stopwatch.Measurement {
        {
            let batch = scenario.nextEvents(events)
            let controller = scenario.design.controller
            var delivered = 0
            let time = await Stopwatch.measure {
                for event in batch where !controller.apply(event).isEmpty { delivered += 1 }
            }
            observer?.delivered(delivered)
            await observer?.drain()
            return time / events
        }
    }
}
