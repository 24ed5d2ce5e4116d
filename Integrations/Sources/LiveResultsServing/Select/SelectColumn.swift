/// A column of `select=`: `alias:name->key->>0::cast`, or an aggregate such as `count()` or `amount.sum()`.
public struct SelectColumn: Hashable, Sendable, CustomStringConvertible {
    /// The column's name (`*` for `count()`).
    ///
    /// - Complexity: O(1).
    public var name: String
    /// The key it has in the answer instead of its name, or `nil`.
    ///
    /// - Complexity: O(1).
    public var alias: String?
    /// The JSON path into the column's value (`->key`, `->>0`), empty for the column itself.
    ///
    /// - Complexity: O(1).
    public var jsonPath: [JSONPathStep]
    /// The type the value is cast to (`::text`), or `nil`.
    ///
    /// - Complexity: O(1).
    public var cast: String?
    /// The aggregate applied to the column (`.sum()`, `count()`), or `nil`.
    ///
    /// - Complexity: O(1).
    public var aggregate: SelectAggregate?
    /// The type the aggregate is cast to, or `nil`.
    ///
    /// - Complexity: O(1).
    public var aggregateCast: String?

    /// A column `name`, with the other parts given.
    ///
    /// - Complexity: O(1).
    public init(
        name: String, alias: String? = nil, jsonPath: [JSONPathStep] = [], cast: String? = nil,
        aggregate: SelectAggregate? = nil, aggregateCast: String? = nil
    ) {
        self.name = name
        self.alias = alias
        self.jsonPath = jsonPath
        self.cast = cast
        self.aggregate = aggregate
        self.aggregateCast = aggregateCast
    }

    /// The key the column has in the answer: its alias, else its name.
    ///
    /// - Complexity: O(1).
    public var key: String { alias ?? name }

    /// Whether the column is the plain column, as this server projects it: no JSON path, cast or aggregate.
    ///
    /// - Complexity: O(1).
    public var isPlain: Bool { jsonPath.isEmpty && cast == nil && aggregate == nil && aggregateCast == nil }

    /// The column in PostgREST's syntax.
    ///
    /// - Complexity: O(*m*) for *m* characters.
    public var description: String {
        var text = alias.map { _SelectSyntax.name($0) + ":" } ?? ""
        if aggregate == .count, name == "*", jsonPath.isEmpty, cast == nil {
            text += "count()"
        } else {
            text += _SelectSyntax.name(name) + jsonPath.map(\.description).joined()
            if let cast { text += "::" + cast }
            if let aggregate { text += "." + aggregate.rawValue + "()" }
        }
        if let aggregateCast { text += "::" + aggregateCast }
        return text
    }
}
