import BenchmarkSupport
import Foundation
import LiveResults

/// The targets of live windows (the *LiveWindows* article): an observed window against an observed controller, a
/// thousand windows against one, a move against a single event, and a large window shifted against a small one.
@MainActor
struct WindowRatios {
    let options: RatioOptions

    func rows() async throws -> [RatioRow] {
        try await topWindow() + tiledWindows() + moves() + shiftedWindows()
    }

    /// Single events anywhere at the medium size, with one window of 50 at the top observed by a delegate,
    /// against the same events on a controller observed by a delegate.
    private func topWindow() async throws -> [RatioRow] {
        let label = Dataset.label(options.medium)
        Progress.say("single events at \(label) with an observed window of 50 at the top, and without")
        let windowed = try await EventScenario<LiveResultsDesign>(count: options.medium)
        let observed = try await EventScenario<LiveResultsDesign>(count: options.medium)
        let delegate = NoOpDelegate()
        let window = windowed.design.controller.window(.first(50))
        window.delegate = delegate
        observed.design.controller.delegate = delegate
        let times = try await Stopwatch.medians(
            options.repetitions,
            of: [perEvent(windowed, options.liveEvents), perEvent(observed, options.liveEvents)])
        withExtendedLifetime((window, delegate)) {}
        return [
            RatioRow(
                name: "Single events at \(label), a window of 50 observed / the controller observed",
                measured: "\(times[0].formatted) with the window, \(times[1].formatted) without",
                value: times[0] / times[1], unit: "×", target: .atMost(1.3))
        ]
    }

    /// Content-only updates at the medium size, each inside one window: 1,000 windows of 50 tiling the
    /// first 50,000 positions (fewer in a quick run), against one window of 50, each window observed.
    private func tiledWindows() async throws -> [RatioRow] {
        let label = Dataset.label(options.medium)
        let count = Swift.min(1_000, options.medium / 50)
        Progress.say("content updates at \(label) with \(count) windows of 50, and with one")
        let tiled = try await EventScenario<LiveResultsDesign>(count: options.medium).design
        let single = try await EventScenario<LiveResultsDesign>(count: options.medium).design
        let delegate = NoOpDelegate()
        let windows = (0..<count).map { tiled.controller.window(.range(offset: $0 * 50, limit: 50)) }
        let one = single.controller.window(.range(offset: 0, limit: 50))
        for window in windows + [one] { window.delegate = delegate }
        var random = SystemRandomNumberGenerator()
        let times = try await Stopwatch.medians(
            options.repetitions,
            of: [
                contentUpdates(tiled.controller, positions: count * 50, &random),
                contentUpdates(single.controller, positions: 50, &random),
            ])
        withExtendedLifetime((windows, one, delegate)) {}
        return [
            RatioRow(
                name: "Content updates at \(label), \(count) windows of 50 / one window",
                measured: "\(times[0].formatted) with \(count), \(times[1].formatted) with one",
                value: times[0] / times[1], unit: "×", target: .atMost(2))
        ]
    }

    /// `move(to:)` by one page of 50 at the large size, against a single event there with a delegate.
    private func moves() async throws -> [RatioRow] {
        let label = Dataset.label(options.large)
        Progress.say("moves of a window by 50 at \(label), and single events")
        let scenario = try await EventScenario<LiveResultsDesign>(count: options.large)
        let delegate = NoOpDelegate()
        let window = scenario.design.controller.window(.range(offset: 0, limit: 50))
        window.delegate = delegate
        scenario.design.controller.delegate = delegate
        let moves = options.liveEvents / 10
        var page = 0
        let times = try await Stopwatch.medians(
            options.repetitions,
            of: [
                {
                    await Stopwatch.measure {
                        for _ in 0..<moves {
                            page = (page + 1) % 10_000
                            window.move(to: .range(offset: page * 50, limit: 50))
                        }
                    } / moves
                },
                perEvent(scenario, options.liveEvents),
            ])
        withExtendedLifetime((window, delegate)) {}
        return [
            RatioRow(
                name: "A window's move by 50 at \(label) / a single event",
                measured: "move \(times[0].formatted), event \(times[1].formatted)",
                value: times[0] / times[1], unit: "×", target: .atMost(20))
        ]
    }

    /// Single inserts and deletes before a window of 1,000 in the middle of the medium size, against the same
    /// before a window of 10: what a change set costs a window it shifts must not grow with the window (the
    /// *LiveWindows* article).
    private func shiftedWindows() async throws -> [RatioRow] {
        let label = Dataset.label(options.medium)
        Progress.say("inserts and deletes at \(label) before an observed window of 1,000, and of 10")
        let limits = [1_000, 10]
        var scenarios: [LiveResultsDesign] = []
        for _ in limits { scenarios.append(try await EventScenario<LiveResultsDesign>(count: options.medium).design) }
        let delegate = NoOpDelegate()
        let windows = zip(scenarios, limits).map { design, limit in
            design.controller.window(.range(offset: options.medium / 2, limit: limit))
        }
        for window in windows { window.delegate = delegate }
        // Each new row goes to the first section, well before the middle, and is deleted by the next event: every
        // event shifts the window by one, and each repetition leaves the results as it found them.
        var random = SystemRandomNumberGenerator()
        let events = (0..<options.liveEvents / 2).flatMap { index -> [EntityEvent<Row>] in
            let id = 100_000_000 + index
            let row = Row(
                id: id, section: Dataset.sectionNames[0], score: Int.random(in: 0..<Dataset.scoreRange, using: &random),
                title: "shift \(index)")
            return [.inserted(row), .deleted(id)]
        }
        let times = try await Stopwatch.medians(
            options.repetitions,
            of: scenarios.map { design in
                { await Stopwatch.measure { for event in events { design.controller.apply(event) } } / events.count }
            })
        withExtendedLifetime((windows, delegate)) {}
        return [
            RatioRow(
                name: "Inserts and deletes before a window at \(label), a window of 1,000 / a window of 10",
                measured: "\(times[0].formatted) with 1,000, \(times[1].formatted) with 10",
                value: times[0] / times[1], unit: "×", target: .atMost(1.5))
        ]
    }

    /// Updates of one row's title at a random position below `positions`, each applied alone.
    private func contentUpdates(
        _ controller: FetchedResultsController<Row>, positions: Int, _ random: inout SystemRandomNumberGenerator
    ) -> Stopwatch.Measurement {
        let objects = controller.fetchedObjects
        let events = (0..<options.liveEvents).map { index -> EntityEvent<Row> in
            var row = objects[Int.random(in: 0..<positions, using: &random)]
            row.title = "update \(index)"
            return .updated(row)
        }
        return {
            await Stopwatch.measure { for event in events { controller.apply(event) } } / events.count
        }
    }

    private func perEvent(_ scenario: EventScenario<LiveResultsDesign>, _ events: Int) -> Stopwatch.Measurement {
        {
            let batch = scenario.nextEvents(events)
            return await Stopwatch.measure { scenario.applyEach(batch) } / events
        }
    }
}
