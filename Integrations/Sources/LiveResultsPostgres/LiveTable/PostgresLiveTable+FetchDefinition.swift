import Foundation
import LiveResults
import PostgresNIO

extension PostgresLiveTable {
    /// A definition that fetches every row of the table, in the order of its id column.
    ///
    /// ```swift
    /// let controller = FetchedResultsController(
    ///     definition: todos.fetchDefinition(), sortDescriptors: [SortDescriptor(\Todo.priority)])
    /// ```
    ///
    /// Each fetch first waits until every subscription to this table listens (or failed its first
    /// attempt): a row committed while the fetch runs then also arrives as a notification, which the
    /// controller replays onto the fetch's result. With a ``PostgresChangeFeed``, the fetch reads in a
    /// transaction whose snapshot the feed records: the transactions it saw are not delivered again. A row that does not decode makes the fetch throw
    /// ``PostgresLiveTableError/undecodableRow(id:underlying:)``.
    ///
    /// - Parameter retry: How often a fetch is tried before it fails; once by default.
    /// - Returns: The definition, for a `FetchedResultsController`.
    /// - Complexity: Each fetch: O(*n*) decoding for *n* rows, plus the server's scan.
    public func fetchDefinition(retry: RetryPolicy = .none) -> FetchDefinition<Entity> {
        FetchDefinition(request: { [self] in try await fetchRows(where: nil) }, retry: retry)
    }

    /// A definition that fetches the rows matching a condition, with the rule live events must pass.
    ///
    /// The condition is SQL written with `PostgresQuery` interpolation, so every value in it is a bound
    /// parameter; its column names are the table's, unqualified. `isIncluded` must say the same thing in
    /// Swift: the controller applies it to every live event (a row updated out of the condition leaves
    /// the results, one updated into it joins them).
    ///
    /// ```swift
    /// let home = todos.fetchDefinition(where: "project = \(project) AND priority <= \(3)") {
    ///     $0.project == project && $0.priority <= 3
    /// }
    /// ```
    ///
    /// - Parameters:
    ///   - condition: The SQL condition of a `WHERE` clause, with bound values.
    ///   - retry: How often a fetch is tried before it fails; once by default.
    ///   - isIncluded: The same condition, for entities.
    /// - Returns: The definition, for a `FetchedResultsController`.
    /// - Complexity: Each fetch: O(*k*) decoding for *k* matching rows, plus the server's scan.
    public func fetchDefinition(
        where condition: PostgresQuery,
        retry: RetryPolicy = .none,
        isIncluded: @escaping @Sendable (Entity) -> Bool
    ) -> FetchDefinition<Entity> {
        FetchDefinition(
            request: { [self] in try await fetchRows(where: condition) }, isIncluded: isIncluded, retry: retry)
    }

    /// A definition that loads the table in keyed pages over a sort column and the id column: for large
    /// tables, a page costs one index range scan, however deep it is.
    ///
    /// Each page is `WHERE (sortColumn, idColumn) > (the last row's) ORDER BY sortColumn, idColumn
    /// LIMIT limit` (`<` and `DESC` when `descending`), the last row's values bound as its JSON. Sort the
    /// controller the same way (by the same column, then the id), so that pages append at the end. The
    /// sort column must not hold `NULL`s (a row comparison with `NULL` is never true), and an index on
    /// `(sortColumn, idColumn)` makes each page cheap.
    ///
    /// ```swift
    /// let feed = posts.fetchDefinition(pagesBy: "created_at", descending: true, limit: 50)
    /// let controller = FetchedResultsController(definition: feed, sortDescriptors: [
    ///     SortDescriptor(\Post.createdAt, order: .reverse), SortDescriptor(\Post.id, order: .reverse)])
    /// try await controller.performFetch()     // the first 50
    /// try await controller.loadNextPage()     // the next 50
    /// ```
    ///
    /// - Parameters:
    ///   - sortColumn: The column the pages are ordered by, then by the id column.
    ///   - descending: Whether the pages go from the largest value down; ascending by default.
    ///   - limit: The number of rows per page; at least 1.
    ///   - condition: An optional SQL condition (see ``fetchDefinition(where:retry:isIncluded:)``).
    ///   - retry: How often a page request is tried before it fails; once by default.
    ///   - isIncluded: The condition, for entities; everything by default.
    /// - Returns: The paginated definition, for a `FetchedResultsController`.
    /// - Complexity: Each page: O(`limit`) decoding, plus the server's index scan.
    public func fetchDefinition(
        pagesBy sortColumn: String,
        descending: Bool = false,
        limit: Int,
        where condition: PostgresQuery? = nil,
        retry: RetryPolicy = .none,
        isIncluded: @escaping @Sendable (Entity) -> Bool = { _ in true }
    ) -> FetchDefinition<Entity> {
        precondition(limit > 0, "a page holds at least one row")
        return FetchDefinition(
            firstPage: _PageCursor.start,
            pageRequest: { [self] cursor in
                try await fetchPage(
                    after: cursor, sortColumn: sortColumn, descending: descending, limit: limit,
                    where: condition)
            },
            isIncluded: isIncluded,
            retry: retry)
    }

    // MARK: Queries

    /// The alias of the table in the queries this type writes: unlikely to be one of its columns.
    static var rowAlias: String { "_liveresults_row" }

    /// Fetches the rows matching `condition` (all of them without one), ordered by id.
    func fetchRows(where condition: PostgresQuery?) async throws -> [Entity] {
        let names = try names.get()
        let row = Self.rowAlias
        var sql =
            "SELECT row_to_json(\(row))::text, \(row).\(names.idColumn.sql)::text FROM \(names.qualifiedTable) AS \(row)"
        if let condition { sql += " WHERE (\(condition.sql))" }
        sql += " ORDER BY \(row).\(names.idColumn.sql)"
        let query = PostgresQuery(unsafeSQL: sql, binds: condition?.binds ?? PostgresBindings())
        return try await connecting { [self] connected in
            if case .replication(let feed) = changes {
                return try await decodeRows(query, meeting: feed, connected: connected).entities
            }
            await coordination.fetchStarting()
            return try await decodeRows(query, connected: connected).entities
        }
    }

    /// Fetches the page after `cursor`.
    func fetchPage(
        after cursor: _PageCursor, sortColumn: String, descending: Bool, limit: Int, where condition: PostgresQuery?
    ) async throws -> Page<Entity, _PageCursor> {
        let names = try names.get()
        let sort = try _QuotedIdentifier(sortColumn).sql
        let id = names.idColumn.sql
        let row = Self.rowAlias
        var binds = condition?.binds ?? PostgresBindings()
        var filters = condition.map { ["(\($0.sql))"] } ?? []
        if case .after(let last) = cursor {
            binds.append(last)
            let lastRow = "(json_populate_record(NULL::\(names.qualifiedTable), $\(binds.count)::json))"
            filters.append(
                "(\(row).\(sort), \(row).\(id)) \(descending ? "<" : ">") (\(lastRow).\(sort), \(lastRow).\(id))")
        }
        binds.append(limit)
        let direction = descending ? "DESC" : "ASC"
        let sql = """
            SELECT row_to_json(\(row))::text, \(row).\(id)::text
            FROM \(names.qualifiedTable) AS \(row)\(filters.isEmpty ? "" : " WHERE " + filters.joined(separator: " AND "))
            ORDER BY \(row).\(sort) \(direction), \(row).\(id) \(direction) LIMIT $\(binds.count)
            """
        let query = PostgresQuery(unsafeSQL: sql, binds: binds)
        return try await connecting { [self] connected in
            let (entities, lastJSON): ([Entity], String?)
            switch (cursor, changes) {
            case (.start, .replication(let feed)):
                (entities, lastJSON) = try await decodeRows(query, meeting: feed, connected: connected)
            case (.start, .notifications):
                await coordination.fetchStarting()
                (entities, lastJSON) = try await decodeRows(query, connected: connected)
            case (.after, _):
                (entities, lastJSON) = try await decodeRows(query, connected: connected)
            }
            let next = entities.count == limit ? lastJSON.map(_PageCursor.after) : nil
            return Page(entities, next: next)
        }
    }

    /// Runs `query`, whose rows are a row's JSON and its id as text, and decodes the entities; calls
    /// `connected` once the query runs. Also returns the last row's JSON (a page's cursor).
    func decodeRows(
        _ query: PostgresQuery, connected: @escaping @Sendable () -> Void
    ) async throws -> (entities: [Entity], lastJSON: String?) {
        let rows = try await client.withTimeout(queryTimeout) { client in
            let rows = try await client.query(query)
            connected()
            return try await rows.decode((String, String?).self).reduce(into: []) { $0.append($1) }
        }
        var entities: [Entity] = []
        entities.reserveCapacity(rows.count)
        for (json, id) in rows {
            entities.append(try decodeRow(json, id: id))
        }
        return (entities, rows.last?.0)
    }

    /// Decodes one row's JSON.
    func decodeRow(_ json: String, id: String?) throws(PostgresLiveTableError) -> Entity {
        do {
            return try decoder.decode(Entity.self, from: Data(json.utf8))
        } catch {
            throw .undecodableRow(id: id, underlying: error)
        }
    }
}

/// Where a page of ``PostgresLiveTable/fetchDefinition(pagesBy:descending:limit:where:retry:isIncluded:)``
/// starts: at the beginning, or after a row (its `row_to_json` form).
enum _PageCursor: Sendable {
    case start
    case after(String)
}
