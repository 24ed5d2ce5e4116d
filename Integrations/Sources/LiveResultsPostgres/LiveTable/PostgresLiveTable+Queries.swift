import Foundation
import LiveResults
import PostgresNIO

extension PostgresLiveTable: QueryableSource where Entity: QueryableEntity {
    /// A definition that fetches the rows `query` selects: its filters as a `WHERE` clause of bound values,
    /// over the columns of `Entity.queryColumns` (whose names are the table's columns).
    ///
    /// ```swift
    /// let query = try LiveQuery<Todo>(filters: [.equal("project", "home")])
    /// let controller = FetchedResultsController(
    ///     definition: todos.fetchDefinition(for: query), sortDescriptors: query.sortDescriptors)
    /// ```
    ///
    /// `eq`, `neq`, `lt`, `lte`, `gt`, `gte` compare with one bound value (text with `COLLATE "C"`, the order
    /// of code points, as `String` compares normalised text), `in` is `= ANY($n)` with one bound array, and
    /// `is.null` is `IS NULL`. The fetch meets the table's subscriptions as ``fetchDefinition(retry:)``'s does.
    ///
    /// - Parameter query: The query, normalised.
    /// - Returns: The definition, whose `isIncluded` is the query's.
    /// - Complexity: Each fetch: O(*k*) decoding for *k* matching rows, plus the server's scan.
    public func fetchDefinition(for query: LiveQuery<Entity>) -> FetchDefinition<Entity> {
        let condition = Result { () throws(PostgresLiveTableError) in try Self.condition(of: query) }
        return FetchDefinition(
            request: { [self] in try await fetchRows(where: try condition.get()) }, isIncluded: query.isIncluded)
    }

    /// The `WHERE` condition of `query`'s filters (`nil` for none), every value bound from `$1` on: what
    /// ``fetchDefinition(for:)`` fetches, for a write that changes the same rows.
    ///
    /// ```swift
    /// if let condition = try PostgresLiveTable<Todo>.condition(of: query) {
    ///     try await client.query(PostgresQuery(unsafeSQL: "DELETE FROM todos WHERE " + condition.sql,
    ///                                          binds: condition.binds))
    /// }
    /// ```
    ///
    /// - Throws: ``PostgresLiveTableError/invalidIdentifier(_:reason:)`` for a column name PostgreSQL would not
    ///   keep as written.
    /// - Complexity: O(*f* + *v*) for *f* filters of *v* values.
    public static func condition(of query: LiveQuery<Entity>) throws(PostgresLiveTableError) -> PostgresQuery? {
        guard !query.filters.isEmpty else { return nil }
        var binds = PostgresBindings()
        var parts: [String] = []
        for filter in query.filters {
            let column = try _QuotedIdentifier(filter.column).sql
            parts.append(sql(of: filter.condition, column: column, binds: &binds))
        }
        return PostgresQuery(unsafeSQL: parts.joined(separator: " AND "), binds: binds)
    }

    private static func sql(of condition: LiveQueryCondition, column: String, binds: inout PostgresBindings) -> String {
        func comparison(_ operation: String, _ value: QueryValue) -> String {
            binds.append(value)
            // Text compares by code points in Swift: the "C" collation does the same in PostgreSQL.
            let collated = value.kind == .text ? "\(column) COLLATE \"C\"" : column
            return "\(collated) \(operation) $\(binds.count)"
        }
        switch condition {
        case .equal(let value): return comparison("=", value)
        case .notEqual(let value): return comparison("<>", value)
        case .lessThan(let value): return comparison("<", value)
        case .lessThanOrEqual(let value): return comparison("<=", value)
        case .greaterThan(let value): return comparison(">", value)
        case .greaterThanOrEqual(let value): return comparison(">=", value)
        case .isNull: return "\(column) IS NULL"
        case .isNotNull: return "\(column) IS NOT NULL"
        case .in(let values):
            guard let kind = values.first?.kind else { return "FALSE" }
            bindArray(values, kind: kind, into: &binds)
            return "\(column) = ANY($\(binds.count))"
        case .notIn(let values):
            guard let kind = values.first?.kind else { return "TRUE" }
            bindArray(values, kind: kind, into: &binds)
            return "NOT (\(column) = ANY($\(binds.count)))"
        }
    }

    /// Binds `values` (all of `kind`, as a normalised query's are) as one array.
    private static func bindArray(_ values: [QueryValue], kind: QueryValueKind, into binds: inout PostgresBindings) {
        switch kind {
        case .integer: binds.append(values.compactMap { if case .integer(let value) = $0 { value } else { nil } })
        case .real: binds.append(values.compactMap { if case .real(let value) = $0 { value } else { nil } })
        case .text: binds.append(values.compactMap { if case .text(let value) = $0 { value } else { nil } })
        case .boolean: binds.append(values.compactMap { if case .boolean(let value) = $0 { value } else { nil } })
        }
    }
}

extension PostgresBindings {
    /// Binds a query's value: an integer as `bigint`, a real as `double precision`, text, a Boolean, or `NULL`.
    ///
    /// ```swift
    /// var binds = PostgresBindings()
    /// binds.append(QueryValue.text("Home"))
    /// ```
    ///
    /// - Complexity: O(*m*) for a value of *m* bytes.
    public mutating func append(_ value: QueryValue) {
        switch value {
        case .integer(let value): append(value)
        case .real(let value): append(value)
        case .text(let value): append(value)
        case .boolean(let value): append(value)
        case .null: appendNull()
        }
    }
}
