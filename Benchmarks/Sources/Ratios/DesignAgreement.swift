import BenchmarkSupport

/// A check that the designs do the same work: after the same events, they show the same result.
@MainActor
enum DesignAgreement {
    private static let count = 2_000
    private static let singleEvents = 1_000
    private static let batches = 10

    /// A line that says whether LiveResults and both baselines, loaded with the same rows, show the
    /// same sections and ids after the same single events and batches.
    static func report() async throws -> String {
        let live = try await contents(of: EventScenario<LiveResultsDesign>(count: count))
        let resort = try await contents(of: EventScenario<ResortDiffBaseline>(count: count))
        let arrays = try await contents(of: EventScenario<SortedArraysBaseline>(count: count))
        let agree = live == resort && live == arrays
        let events = "\(singleEvents) single events and \(batches) batches at \(Dataset.label(count))"
        return "LiveResults, (a) and (b) show the same result after \(events): \(agree ? "yes" : "NO")"
    }

    private static func contents<Design>(of scenario: EventScenario<Design>) -> [SectionContents] {
        scenario.applyEach(scenario.nextEvents(singleEvents))
        scenario.applyBatches(scenario.nextBatches(batches))
        return scenario.design.contents
    }
}
