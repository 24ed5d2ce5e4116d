import Fluent
import LiveResults

extension QueryBuilder {
    /// The rows `query`'s filters select, as Fluent filters: each condition on its column, as SQL compares
    /// (a `NULL` column matches only `isNull`). The columns are those the server's routes allow, never a name
    /// a request made up.
    ///
    /// - Complexity: O(*f*) for *f* filters.
    @discardableResult
    func filter<Row>(_ query: LiveQuery<Row>) -> Self {
        for filter in query.filters {
            let field = DatabaseQuery.Field.path([FieldKey(stringLiteral: filter.column)], schema: Model.schema)
            switch filter.condition {
            case .equal(let value): self.filter(field, .equal, Self.value(value))
            case .notEqual(let value): self.filter(field, .notEqual, Self.value(value))
            case .lessThan(let value): self.filter(field, .lessThan, Self.value(value))
            case .lessThanOrEqual(let value): self.filter(field, .lessThanOrEqual, Self.value(value))
            case .greaterThan(let value): self.filter(field, .greaterThan, Self.value(value))
            case .greaterThanOrEqual(let value): self.filter(field, .greaterThanOrEqual, Self.value(value))
            case .in(let values): self.filter(field, .subset(inverse: false), .array(values.map(Self.value)))
            case .isNull: self.filter(field, .equal, .null)
            // Fluent writes a comparison with NULL as IS NOT NULL.
            case .isNotNull: self.filter(field, .notEqual, .null)
            // Nothing to leave out: `NOT (column = ANY('{}'))` holds for every row, NULL included.
            case .notIn(let values) where values.isEmpty: continue
            case .notIn(let values): self.filter(field, .subset(inverse: true), .array(values.map(Self.value)))
            }
        }
        return self
    }

    /// A query's value as a bound parameter.
    private static func value(_ value: QueryValue) -> DatabaseQuery.Value {
        switch value {
        case .integer(let integer): .bind(integer)
        case .real(let real): .bind(real)
        case .text(let text): .bind(text)
        case .boolean(let boolean): .bind(boolean)
        case .null: .null
        }
    }
}
