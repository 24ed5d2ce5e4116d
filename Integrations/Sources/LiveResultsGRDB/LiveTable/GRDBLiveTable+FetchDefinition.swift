import Foundation
import GRDB
import LiveResults

extension GRDBLiveTable {
    /// A definition that fetches every record of the table, in rowid order.
    ///
    /// ```swift
    /// let controller = FetchedResultsController(
    ///     definition: players.fetchDefinition(), sortDescriptors: [SortDescriptor(\Player.name)])
    /// ```
    ///
    /// A fetch reads from one of the writer's readers (a `DatabasePool` reads concurrently with writes),
    /// with GRDB's `async` read: it never blocks the calling task's thread. A row that does not decode makes
    /// it throw; a table whose primary key is not its rowid makes it throw
    /// ``GRDBLiveTableError/primaryKeyIsNotRowID(table:)``.
    ///
    /// - Parameter retry: How often a fetch is tried before it fails; once by default.
    /// - Returns: The definition, for a `FetchedResultsController`.
    /// - Complexity: Each fetch: O(*n*) decoding for *n* rows, plus SQLite's scan.
    public func fetchDefinition(retry: RetryPolicy = .none) -> FetchDefinition<Record> {
        let request = allRecords().order(Column.rowID)
        return FetchDefinition(request: { [self] in try await fetch(request) }, retry: retry)
    }

    /// A definition that fetches the records a GRDB request selects, with the rule live events must pass.
    ///
    /// The request is the table's (`Record.filter(…)`, `Record.all()`, with any order: the controller's
    /// sort descriptors decide the order shown, the request's order the insertion order of ties).
    /// `isIncluded` must say the same thing as its filter, in Swift: the controller applies it to every
    /// live event (a record updated out of the filter leaves the results, one updated into it joins them).
    ///
    /// ```swift
    /// let champions = players.fetchDefinition(Player.filter(Column("score") >= 1000)) { $0.score >= 1000 }
    /// ```
    ///
    /// - Parameters:
    ///   - request: A request of the table's records; joins to other tables are not observed (see the
    ///     *SQLite with GRDB* article).
    ///   - retry: How often a fetch is tried before it fails; once by default.
    ///   - isIncluded: The request's filter, for records.
    /// - Returns: The definition, for a `FetchedResultsController`.
    /// - Complexity: Each fetch: O(*k*) decoding for *k* matching rows, plus SQLite's scan.
    public func fetchDefinition(
        _ request: QueryInterfaceRequest<Record>,
        retry: RetryPolicy = .none,
        isIncluded: @escaping @Sendable (Record) -> Bool
    ) -> FetchDefinition<Record> {
        FetchDefinition(request: { [self] in try await fetch(request) }, isIncluded: isIncluded, retry: retry)
    }

    /// A definition that loads the table in keyed pages over a column and the rowid: for large tables, a
    /// page costs one index range scan, however deep it is.
    ///
    /// Each page is `WHERE (column, rowid) > (the last record's) ORDER BY column, rowid LIMIT limit` (`<` and
    /// `DESC` when `descending`), on top of `request`'s filter. Sort the controller the same way (by the
    /// column's property, then the id), so that pages append at the end. The column must not hold `NULL`s,
    /// and an index on it makes each page cheap. SQLite compares text with its collation (`BINARY` by
    /// default: bytes), so a text column sorts the same in Swift only for the same collation.
    ///
    /// ```swift
    /// let ranking = players.fetchDefinition(pagesBy: Column("score"), descending: true, limit: 50)
    /// let controller = FetchedResultsController(definition: ranking, sortDescriptors: [
    ///     SortDescriptor(\Player.score, order: .reverse), SortDescriptor(\Player.id, order: .reverse)])
    /// try await controller.performFetch()     // the first 50
    /// try await controller.loadNextPage()     // the next 50
    /// ```
    ///
    /// - Parameters:
    ///   - column: The column the pages are ordered by, then by rowid.
    ///   - descending: Whether the pages go from the largest value down; ascending by default.
    ///   - limit: The number of records per page; at least 1.
    ///   - request: The records to page through; all of them by default. Its order is replaced.
    ///   - retry: How often a page request is tried before it fails; once by default.
    ///   - isIncluded: The request's filter, for records; everything by default.
    /// - Returns: The paginated definition, for a `FetchedResultsController`.
    /// - Complexity: Each page: O(`limit`) decoding, plus SQLite's index range scan, O(log *n* + `limit`).
    public func fetchDefinition(
        pagesBy column: Column,
        descending: Bool = false,
        limit: Int,
        request: QueryInterfaceRequest<Record>? = nil,
        retry: RetryPolicy = .none,
        isIncluded: @escaping @Sendable (Record) -> Bool = { _ in true }
    ) -> FetchDefinition<Record> {
        precondition(limit > 0, "a page holds at least one record")
        let base = request ?? allRecords()
        return FetchDefinition(
            firstPage: _PageCursor.start,
            pageRequest: { [self] cursor in
                try await fetchPage(after: cursor, of: base, by: column, descending: descending, limit: limit)
            },
            isIncluded: isIncluded,
            retry: retry)
    }

    // MARK: Fetches

    /// Fetches the records of `request`, after checking the table.
    ///
    /// It first waits (suspended) for the subscriptions' observers scheduled before it, then reads with
    /// GRDB's `async` read, which runs on GRDB's reader queue: no thread of the caller's is blocked.
    func fetch(_ request: QueryInterfaceRequest<Record>) async throws -> [Record] {
        await installations.settled()
        return try await writer.read { [self] db in
            try validate(db)
            return try request.fetchAll(db)
        }
    }

    /// Fetches the page after `cursor`.
    func fetchPage(
        after cursor: _PageCursor, of request: QueryInterfaceRequest<Record>, by column: Column, descending: Bool,
        limit: Int
    ) async throws -> Page<Record, _PageCursor> {
        let valueKey = "_liveresults_page_key"
        let rowIDKey = "_liveresults_rowid"
        var page = request
        if case .after(let value, let rowID) = cursor {
            page =
                descending
                ? page.filter(literal: "(\(column), \(Column.rowID)) < (\(value), \(rowID))")
                : page.filter(literal: "(\(column), \(Column.rowID)) > (\(value), \(rowID))")
        }
        page = page.order(descending ? [column.desc, Column.rowID.desc] : [column.asc, Column.rowID.asc])
            .limit(limit)
        let rows = page.annotated(with: column.forKey(valueKey), Column.rowID.forKey(rowIDKey)).asRequest(of: Row.self)
        await installations.settled()
        return try await writer.read { [self] db in
            try validate(db)
            var records: [Record] = []
            var last: (DatabaseValue, Int64)?
            let cursor = try Row.fetchCursor(db, rows)
            while let row = try cursor.next() {
                records.append(try Record(row: row))
                last = (row[valueKey], row[rowIDKey])
            }
            let next = records.count == limit ? last.map { _PageCursor.after($0.0, $0.1) } : nil
            return Page(records, next: next)
        }
    }
}

/// Where a page of ``GRDBLiveTable/fetchDefinition(pagesBy:descending:limit:request:retry:isIncluded:)``
/// starts: at the beginning, or after a record (its column's value and its rowid).
enum _PageCursor: Sendable {
    case start
    case after(DatabaseValue, Int64)
}
