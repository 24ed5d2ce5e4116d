import BenchmarkSupport
import Foundation
import LiveResults
import Synchronization

/// The targets of the live views: a resume against the events it catches up on, a
/// collapsible view's cost per event, and coalesced delivery under a stream of single events.
@MainActor
struct ViewRatios {
    let options: RatioOptions

    func rows() async throws -> [RatioRow] {
        try await resume() + collapsible() + coalescing()
    }

    /// A resume after *k* events at the large size, against the same *k* events applied unpaused to a
    /// second controller with the same rows and events.
    private func resume() async throws -> [RatioRow] {
        let label = Dataset.label(options.large)
        Progress.say("resume after k events at \(label), and the same events unpaused")
        let paused = try await EventScenario<LiveResultsDesign>(count: options.large)
        let plain = try await EventScenario<LiveResultsDesign>(count: options.large)
        var rows: [RatioRow] = []
        for count in [1, 100, options.liveEvents / 2] {
            // Short runs are repeated, so that each measurement spans thousands of events.
            let rounds = Swift.max(1, options.liveEvents / 10 / count)
            let times = try await Stopwatch.medians(
                options.repetitions,
                of: [
                    {
                        var total = Duration.zero
                        for _ in 0..<rounds {
                            let events = paused.nextEvents(count)
                            paused.design.controller.pause()
                            paused.applyEach(events)
                            total += await Stopwatch.measure { paused.design.controller.resume().insertedItems.count }
                        }
                        return total
                    },
                    {
                        var total = Duration.zero
                        for _ in 0..<rounds {
                            let events = plain.nextEvents(count)
                            total += await Stopwatch.measure { plain.applyEach(events) }
                        }
                        return total
                    },
                ])
            rows.append(
                RatioRow(
                    name: "Resume after \(count) events at \(label) / the \(count) events",
                    measured: "resume \((times[0] / rounds).formatted), events \((times[1] / rounds).formatted)",
                    value: times[0] / times[1], unit: "×", target: .atMost(2)))
        }
        return rows
    }

    /// Single events at the medium size with a collapsible view over the controller (some sections
    /// collapsed, one with a limit) and a delegate of the view, against the same events on a controller
    /// with a delegate of its own: what the view adds to an observed controller. Both delegates do nothing.
    private func collapsible() async throws -> [RatioRow] {
        let label = Dataset.label(options.medium)
        Progress.say("single events at \(label) with and without a CollapsibleSections view")
        let viewed = try await EventScenario<LiveResultsDesign>(count: options.medium)
        let observed = try await EventScenario<LiveResultsDesign>(count: options.medium)
        let plain = try await EventScenario<LiveResultsDesign>(count: options.medium)
        let view = benchmarkView(of: viewed.design.controller)
        let delegate = NoOpDelegate()
        view.delegate = delegate
        observed.design.controller.delegate = delegate
        let times = try await Stopwatch.medians(
            options.repetitions,
            of: [
                perEvent(in: viewed, events: options.liveEvents),
                perEvent(in: observed, events: options.liveEvents),
                perEvent(in: plain, events: options.liveEvents),
            ])
        withExtendedLifetime((view, delegate)) {}
        return [
            RatioRow(
                name: "Single events at \(label), a collapsible view observed / the controller observed",
                measured: "\(times[0].formatted) with the view, \(times[1].formatted) without",
                value: times[0] / times[1], unit: "×", target: .atMost(1.25)),
            RatioRow(
                name: "Single events at \(label), the controller observed / not observed",
                measured: "\(times[1].formatted) with a delegate, \(times[2].formatted) without",
                value: times[1] / times[2], unit: "×", target: .none),
        ]
    }

    /// 100,000 single events (fewer in a quick run) as fast as one thread applies them, with a 16 ms
    /// coalescing interval and an observer, at the medium and the large size: events per second,
    /// deliveries, and the time per event against the same events without coalescing.
    private func coalescing() async throws -> [RatioRow] {
        var rows: [RatioRow] = []
        let events = options.isQuick ? 10_000 : 100_000
        for count in [options.medium, options.large] {
            let label = Dataset.label(count)
            Progress.say("\(events) single events at \(label), coalesced every 16 ms")
            let coalesced = try await EventScenario<LiveResultsDesign>(count: count)
            let plain = try await EventScenario<LiveResultsDesign>(count: count)
            let deliveries = Atomic<Int>(0)
            let controller = coalesced.design.controller
            let (_, subscription) = controller.observeChanges { _, _ in
                deliveries.add(1, ordering: .relaxed)
            }
            controller.coalescingInterval = .milliseconds(16)
            let batch = coalesced.nextEvents(events)
            let time = await Stopwatch.measure { coalesced.applyEach(batch) }
            let plainBatch = plain.nextEvents(events)
            let plainTime = await Stopwatch.measure { plain.applyEach(plainBatch) }
            try await Task.sleep(for: .milliseconds(40))
            subscription.cancel()
            let perSecond = Double(events) / time.seconds
            rows.append(
                RatioRow(
                    name: "\(Dataset.label(events)) coalesced single events at \(label) / uncoalesced",
                    measured: "\(Int(perSecond)) events/s, \(deliveries.load(ordering: .relaxed)) deliveries",
                    value: time / plainTime, unit: "×", target: .none))
        }
        return rows
    }

    private func perEvent(in scenario: EventScenario<LiveResultsDesign>, events: Int) -> Stopwatch.Measurement {
        {
            let batch = scenario.nextEvents(events)
            return await Stopwatch.measure { scenario.applyEach(batch) } / events
        }
    }
}
