import BenchmarkSupport
import Foundation
import LiveResults

/// The persisted-results target: a cold start from a `FileResultsStore` file at the medium size
/// (read, decode, build the results), against decoding the file's payload with `JSONDecoder` plus a fetch
/// of the decoded rows into a new controller; with the parts of the cold start and the file's size.
@MainActor
struct CacheRatios {
    let options: RatioOptions

    func rows() async throws -> [RatioRow] {
        let count = options.medium
        let label = Dataset.label(count)
        Progress.say("cold start from a results file of \(label) rows, and JSONDecoder + a fetch of the same rows")
        let scenario = try await CacheScenario(count: count)
        defer { scenario.removeFiles() }
        let fileSize = try scenario.fileSize
        let times = try await Stopwatch.medians(
            options.repetitions,
            of: [
                {
                    var controller: FetchedResultsController<Row>?
                    let time = try await Stopwatch.measure { controller = try await scenario.coldStart() }
                    guard let controller, scenario.showsSavedRows(controller) else { throw Failure.notFromCache }
                    return time
                },
                { try await Stopwatch.measure { try await scenario.decodeAndFetch() } },
                // The parts, for the report.
                { try await Stopwatch.measure { try scenario.readFileBytes() } },
                { try await Stopwatch.measure { try await scenario.readFromStore() } },
                { try await Stopwatch.measure { try scenario.decodePayload() } },
            ])
        let (coldStart, reference, fileRead, storeRead, decode) = (times[0], times[1], times[2], times[3], times[4])
        return [
            RatioRow(
                name: "Cold start from the file store at \(label) / JSONDecoder + fetch",
                measured: "cold start \(coldStart.formatted), decode + fetch \(reference.formatted)",
                value: coldStart / reference, unit: "×", target: .atMost(1.3)),
            // What the cold start adds to the reference is the store's read, unless building the results
            // from the file costs more than building them from the decoded rows.
            RatioRow(
                name: "Store read at \(label) / JSONDecoder + fetch",
                measured:
                    "read \(storeRead.formatted) (file bytes alone \(fileRead.formatted)), "
                    + "decode \(decode.formatted), fetch \((reference - decode).formatted)",
                value: storeRead / reference, unit: "×", target: .none),
            RatioRow(
                name: "Results file at \(label)",
                measured: "\(fileSize) bytes",
                value: Double(fileSize) / Double(count), unit: " B/entity", target: .none),
        ]
    }

    enum Failure: Error {
        /// A cold start did not show the saved rows.
        case notFromCache
    }
}
