import Foundation
import GRDB
import LiveResults
import LiveResultsTestSupport
import LiveResultsGRDB
import NIOConcurrencyHelpers
import Testing

/// The kinds of database a test runs against, each an on-disk file in a temporary folder.
enum WriterKind: String, Sendable, CaseIterable, CustomTestStringConvertible {
    case queue
    case pool

    var testDescription: String { self == .queue ? "DatabaseQueue" : "DatabasePool (WAL)" }
}

/// A temporary folder with a database file, removed at the end of the test. The database is opened off the
/// cooperative pool (see ``offThePool(_:)``).
func withDatabase<Result>(
    _ kind: WriterKind, _ body: (any DatabaseWriter, String) async throws -> Result
) async throws -> Result {
    let folder = FileManager.default.temporaryDirectory.appendingPathComponent(
        "liveresults-grdb-\(UUID().uuidString)", isDirectory: true)
    try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(at: folder) }
    let path = folder.appendingPathComponent("db.sqlite").path
    let writer: any DatabaseWriter = try await offThePool {
        switch kind {
        case .queue: try DatabaseQueue(path: path)
        case .pool: try DatabasePool(path: path)
        }
    }
    return try await body(writer, path)
}

/// Records the batches a subscription delivers, and the malformed events it reports.
final class BatchRecorder<Entity: FetchableEntity>: Sendable {
    private let state = NIOLockedValueBox<(batches: [[EntityEvent<Entity>]], malformed: [any Error])>(([], []))

    var batches: [[EntityEvent<Entity>]] { state.withLockedValue { $0.batches } }
    var malformed: [any Error] { state.withLockedValue { $0.malformed } }

    /// The number of batches that ask for a refetch.
    var invalidations: Int {
        batches.count { batch in batch.contains { if case .invalidated = $0 { true } else { false } } }
    }

    var subscriber: EventSubscriber<Entity> {
        EventSubscriber(
            receive: { [self] events in state.withLockedValue { $0.batches.append(events) } },
            reportMalformedEvent: { [self] error in state.withLockedValue { $0.malformed.append(error) } })
    }
}

/// A live table of players with a controller that follows it (sections by team, score descending, then id)
/// and checks the change-set contract at each delivery.
struct LivePlayers: Sendable {
    let table: GRDBLiveTable<Player>
    let controller: FetchedResultsController<Player>
    let checker: ContractChecker<Player>
    let subscription: EventSubscription
    /// The SQL condition of the definition, for comparisons.
    let condition: String

    init(
        _ writer: any DatabaseWriter, condition: String = "1", request: QueryInterfaceRequest<Player>? = nil,
        isIncluded: @escaping @Sendable (Player) -> Bool = { _ in true }
    ) async throws {
        table = GRDBLiveTable<Player>(writer)
        let definition =
            if let request { table.fetchDefinition(request, isIncluded: isIncluded) } else { table.fetchDefinition() }
        controller = FetchedResultsController(
            definition: definition, sortDescriptors: Player.sortDescriptors, sectionNameKeyPath: \Player.team)
        checker = ContractChecker(controller)
        subscription = controller.observe(table)
        self.condition = condition
        try await controller.performFetch()
    }

    /// The controller's players in display order.
    var shown: [Player] { Array(controller.fetchedObjects) }

    /// The query's own result, in the controller's order.
    func selected(_ reader: any DatabaseReader) async throws -> [Player] {
        let sql = "SELECT * FROM player WHERE \(condition) ORDER BY \(Player.orderSQL)"
        return try await reader.read { db in try Player.fetchAll(db, sql: sql) }
    }

    /// Waits until the controller shows exactly the query's result.
    func waitUntilMatching(_ reader: any DatabaseReader) async throws -> Bool {
        try await eventually { try await shown == selected(reader) }
    }
}
