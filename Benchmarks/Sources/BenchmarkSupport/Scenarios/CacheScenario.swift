import Foundation
import LiveResults

/// A cold start from persisted results: seeded rows saved by a controller's fetch to a
/// `FileResultsStore` in a directory of its own, then shown by new controllers that read the file instead
/// of fetching; and its reference, the file's payload decoded with `JSONDecoder` and fetched into a new
/// controller.
///
/// "Cold" is the controller's: the file stays in the system's page cache between repetitions, so a read
/// costs no disk access. Call `removeFiles()` when done: the directory is in the temporary directory.
public final class CacheScenario: Sendable {
    /// The key the rows are saved under.
    public static let key = "rows"

    public let count: Int
    public let store: FileResultsStore
    /// The payload of the saved file (a JSON array of the rows in display order), read once outside the
    /// measurements, for the reference.
    public let payload: Data

    /// Fetches `count` seeded rows into a controller whose definition saves them to a new store.
    public init(count: Int) async throws {
        let directory = FileManager.default.temporaryDirectory
            .appendingPathComponent("LiveResults-cache-benchmark-\(UUID().uuidString)", isDirectory: true)
        let store = FileResultsStore(directory: directory)
        let rows = Dataset.rows(count: count)
        let writer = Self.makeController(store: store) { rows }
        try await writer.performFetch()
        guard writer.resultsOrigin == .request, let saved = try await store.results(forKey: Self.key) else {
            throw Failure.notSaved
        }
        self.count = count
        self.store = store
        self.payload = saved.data
    }

    /// The size of the saved file in bytes: the envelope and its payload.
    public var fileSize: Int {
        get throws {
            let attributes = try FileManager.default.attributesOfItem(atPath: store.fileURL(forKey: Self.key).path)
            return (attributes[.size] as? NSNumber)?.intValue ?? 0
        }
    }

    /// The measured operation: a new controller's first fetch, which shows the saved rows and makes no
    /// request.
    public func coldStart() async throws -> FetchedResultsController<Row> {
        let controller = Self.makeController(store: store) { throw Failure.requested }
        try await controller.performFetch()
        return controller
    }

    /// Whether `controller` shows every saved row, read from the file.
    public func showsSavedRows(_ controller: FetchedResultsController<Row>) -> Bool {
        guard case .cache = controller.resultsOrigin else { return false }
        return controller.snapshot.count == count
    }

    /// The reference: the payload decoded with `JSONDecoder`, and the decoded rows fetched into a new
    /// controller with a plain definition.
    public func decodeAndFetch() async throws -> FetchedResultsController<Row> {
        let rows = try decodePayload()
        let controller = LiveResultsDesign.makeController { rows }
        try await controller.performFetch()
        return controller
    }

    /// A part of the reference: the payload decoded with `JSONDecoder`.
    public func decodePayload() throws -> [Row] {
        try JSONDecoder().decode([Row].self, from: payload)
    }

    /// A part of the cold start: the store's read of the file (the read, the envelope's checks and its
    /// checksum, the payload copied out).
    public func readFromStore() async throws -> CachedResults? {
        try await store.results(forKey: Self.key)
    }

    /// A part of the store's read: the file's bytes alone, read with Foundation.
    public func readFileBytes() throws -> Data {
        try Data(contentsOf: store.fileURL(forKey: Self.key))
    }

    /// Deletes the store's directory.
    public func removeFiles() {
        try? FileManager.default.removeItem(at: store.directory)
    }

    /// A controller with the benchmarks' configuration whose definition reads and saves `store`, and
    /// shows saved rows instead of fetching.
    static func makeController(
        store: FileResultsStore, request: @escaping FetchDefinition<Row>.Request
    ) -> FetchedResultsController<Row> {
        FetchedResultsController(
            definition: FetchDefinition(
                request: request, cache: ResultsCachePolicy(key: key, store: store, usage: .insteadOfFetching)),
            sortDescriptors: [SortDescriptor(\Row.score)],
            sectionNameKeyPath: \Row.section
        )
    }

    enum Failure: Error {
        /// The first fetch did not save the rows.
        case notSaved
        /// A cold start made its request instead of reading the saved rows.
        case requested
    }
}
