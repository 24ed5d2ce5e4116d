import BenchmarkSupport

/// The fetch targets: the initial fetch against `Array.sort(by:)`, and the refetch diff against one
/// dictionary build.
@MainActor
struct FetchRatios {
    let options: RatioOptions

    func initialFetch() async throws -> RatioRow {
        let label = Dataset.label(options.large)
        Progress.say("initial fetch of \(label) and Array.sort(by:) of the same rows")
        let scenario = FetchScenario(count: options.large)
        let times = try await Stopwatch.medians(
            options.repetitions,
            of: [
                { try await Stopwatch.measure { try await scenario.fetch() } },
                {
                    var rows = scenario.unsortedCopy()
                    return await Stopwatch.measure { FetchScenario.sortByHand(&rows) }
                },
            ])
        return RatioRow(
            name: "Initial fetch at \(label) / Array.sort(by:) closure",
            measured: "fetch \(times[0].formatted), sort \(times[1].formatted)",
            value: times[0] / times[1], unit: "×", target: .atMost(1.5))
    }

    /// The refetch diff is the refetch minus a fetch of the same result into a new controller that
    /// replaces the one before it: what the refetch does beyond loading the result and freeing the one
    /// it replaces, which is the diff.
    func refetch() async throws -> [RatioRow] {
        let label = Dataset.label(options.medium)
        Progress.say("refetch at \(label), fetch of the same result, and one [id: position] dictionary")
        let scenario = try await RefetchScenario(count: options.medium)
        let fresh = FetchScenario(rows: scenario.second)
        let held = HeldDesign(try await fresh.fetch())
        let times = try await Stopwatch.medians(
            options.repetitions,
            of: [
                { try await Stopwatch.measure { try await scenario.refetch() } },
                // A refetch frees the storage it replaces before it returns; so does this fetch.
                { try await Stopwatch.measure { held.design = try await fresh.fetch() } },
                { await Stopwatch.measure { RefetchScenario.positions(of: scenario.second) } },
            ])
        let (refetch, fetch, dictionary) = (times[0], times[1], times[2])
        let moves = try await scenario.refetch().movedItems.count
        return [
            RatioRow(
                name: "Refetch diff at \(label) / [id: position] dictionary",
                measured: "refetch \(refetch.formatted) − fetch \(fetch.formatted), dictionary \(dictionary.formatted)",
                value: (refetch - fetch) / dictionary, unit: "×", target: .atMost(4)),
            RatioRow(
                name: "Whole refetch at \(label) / [id: position] dictionary",
                measured: "\(moves) moves for \(scenario.rescoredCount) rows given a new score",
                value: refetch / dictionary, unit: "×", target: .none),
        ]
    }
}

/// The controller of the last fresh fetch, which the next one replaces (and so frees) inside its
/// measurement, as a refetch frees the storage it replaces.
@MainActor
private final class HeldDesign {
    var design: LiveResultsDesign

    init(_ design: LiveResultsDesign) {
        self.design = design
    }
}
