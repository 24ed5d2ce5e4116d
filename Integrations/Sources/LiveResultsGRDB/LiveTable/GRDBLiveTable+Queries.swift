import Foundation
import GRDB
import LiveResults

extension GRDBLiveTable: QueryableSource where Record: QueryableEntity {
    /// A definition that fetches the records `query` selects: its filters as a GRDB filter of bound values,
    /// over the columns of `Record.queryColumns` (whose names are the table's columns).
    ///
    /// ```swift
    /// let query = try LiveQuery<Player>(filters: [.equal("team", "red")])
    /// let controller = FetchedResultsController(
    ///     definition: players.fetchDefinition(for: query), sortDescriptors: query.sortDescriptors)
    /// ```
    ///
    /// SQLite compares text with the column's collation (`BINARY` by default: bytes, the order of code points,
    /// as `String` compares normalised text); a column declared with another collation filters differently in
    /// SQL than in Swift.
    ///
    /// - Parameter query: The query, normalised.
    /// - Returns: The definition, whose `isIncluded` is the query's.
    /// - Complexity: Each fetch: O(*k*) decoding for *k* matching rows, plus SQLite's scan.
    public func fetchDefinition(for query: LiveQuery<Record>) -> FetchDefinition<Record> {
        let request = query.filters.reduce(allRecords().order(Column.rowID)) { request, filter in
            request.filter(Self.expression(of: filter))
        }
        return FetchDefinition(request: { [self] in try await fetch(request) }, isIncluded: query.isIncluded)
    }

    private static func expression(of filter: LiveQueryFilter) -> SQLExpression {
        let column = Column(filter.column)
        switch filter.condition {
        case .equal(let value): return column == databaseValue(value)
        case .notEqual(let value): return column != databaseValue(value)
        case .lessThan(let value): return column < databaseValue(value)
        case .lessThanOrEqual(let value): return column <= databaseValue(value)
        case .greaterThan(let value): return column > databaseValue(value)
        case .greaterThanOrEqual(let value): return column >= databaseValue(value)
        case .isNull: return column == nil
        case .isNotNull: return column != nil
        case .in(let values): return values.map(databaseValue).contains(column)
        case .notIn(let values):
            return values.isEmpty ? true.sqlExpression : !values.map(databaseValue).contains(column)
        }
    }

    private static func databaseValue(_ value: QueryValue) -> DatabaseValue {
        switch value {
        case .integer(let value): value.databaseValue
        case .real(let value): value.databaseValue
        case .text(let value): value.databaseValue
        case .boolean(let value): value.databaseValue
        case .null: .null
        }
    }
}
