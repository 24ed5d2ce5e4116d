import BenchmarkSupport
import LiveResults

/// The pagination target: a page of 1,000 new entities appended at the large size, against
/// the same number of new entities applied as one batch of inserts.
@MainActor
struct PageRatios {
    let options: RatioOptions
    let pageSize = 1_000

    func appendedPage() async throws -> RatioRow {
        let label = Dataset.label(options.large)
        Progress.say("a page of \(pageSize) appended at \(label), and the same number of rows inserted in one batch")
        let scenario = try await PageScenario(count: options.large, pageSize: pageSize)
        let times = try await Stopwatch.medians(
            options.repetitions,
            of: [
                {
                    let rows = scenario.prepareRows()
                    let time = try await Stopwatch.measure { try await scenario.appendPage() }
                    scenario.removeRows(rows)
                    return time
                },
                {
                    let rows = scenario.prepareRows()
                    let events = rows.map { EntityEvent.inserted($0) }
                    let time = await Stopwatch.measure { scenario.insert(events) }
                    scenario.removeRows(rows)
                    return time
                },
            ])
        let size = Dataset.label(pageSize)
        return RatioRow(
            name: "Page of \(size) appended at \(label) / one batch of \(size) inserts",
            measured: "page \(times[0].formatted), batch \(times[1].formatted)",
            value: times[0] / times[1], unit: "×", target: .atMost(1.5))
    }
}
