import Foundation
import LiveResults
import Synchronization

/// A paginated controller loaded with the seeded rows as its first page, whose next pages each bring
/// `pageSize` new rows; and its reference, the same number of new rows applied as one batch of inserts.
///
/// Prepare the rows with `prepareRows()` outside the measurement; after each measured step, take the
/// rows out again with `removeRows(_:)`, so that every step starts from `count` rows.
public final class PageScenario: Sendable {
    public let controller: FetchedResultsController<Row>
    public let pageSize: Int
    /// The rows the next page request returns; a page is served from memory, so the request costs nothing.
    private let nextPage: PreparedRows
    private let nextID = Mutex(0)

    /// Loads a controller with `count` seeded rows as its first page.
    public init(count: Int, pageSize: Int) async throws {
        let nextPage = PreparedRows(Dataset.rows(count: count))
        self.nextPage = nextPage
        self.pageSize = pageSize
        nextID.withLock { $0 = count }
        controller = FetchedResultsController(
            definition: FetchDefinition(
                firstPage: 0,
                pageRequest: { page in Page(nextPage.rows.withLock { $0 }, next: page + 1) }),
            sortDescriptors: [SortDescriptor(\Row.score)],
            sectionNameKeyPath: \Row.section
        )
        try await controller.performFetch()
    }

    /// `pageSize` new rows, with ids no row had before; the next page request returns them too.
    public func prepareRows() -> [Row] {
        let ids = nextID.withLock { next in
            defer { next += pageSize }
            return next..<next + pageSize
        }
        let rows = Dataset.rows(ids: ids, seed: Dataset.seed &+ UInt64(ids.lowerBound))
        nextPage.rows.withLock { $0 = rows }
        return rows
    }

    /// The measured operation: loads the next page.
    /// - Returns: the number of changes reported.
    public func appendPage() async throws -> Int {
        try await controller.loadNextPage().count
    }

    /// The reference: applies `events` (the prepared rows, inserted) as one batch.
    /// - Returns: the number of changes reported.
    public func insert(_ events: [EntityEvent<Row>]) -> Int {
        controller.apply(events).count
    }

    /// Deletes `rows` again, outside the measurement.
    public func removeRows(_ rows: [Row]) {
        controller.apply(rows.map { .deleted($0.id) })
    }
}

/// The rows a page request returns, shared between the scenario and its definition's request.
private final class PreparedRows: Sendable {
    let rows: Mutex<[Row]>

    init(_ rows: [Row]) {
        self.rows = Mutex(rows)
    }
}
