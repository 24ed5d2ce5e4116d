/// A filter addressed to an embedded resource: `alias.column=OPERATOR.VALUE`.
public struct EmbeddedFilter: Hashable, Sendable {
    /// The embedded resource's column.
    ///
    /// - Complexity: O(1).
    public var column: String
    /// `OPERATOR.VALUE`, as written.
    ///
    /// - Complexity: O(1).
    public var condition: String

    /// A filter on `column`.
    ///
    /// - Complexity: O(1).
    public init(column: String, condition: String) {
        self.column = column
        self.condition = condition
    }
}
