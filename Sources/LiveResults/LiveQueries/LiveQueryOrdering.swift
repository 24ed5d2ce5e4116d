/// One column of a live query's order: `priority.desc`.
public struct LiveQueryOrdering: Hashable, Sendable {
    /// The column's name.
    ///
    /// - Complexity: O(1).
    public var column: String
    /// Whether larger values come first.
    ///
    /// - Complexity: O(1).
    public var descending: Bool

    /// The order by `column`, ascending unless `descending`.
    ///
    /// - Complexity: O(1).
    public init(column: String, descending: Bool = false) {
        self.column = column
        self.descending = descending
    }
}

extension LiveQueryOrdering: CustomStringConvertible {
    /// PostgREST's form: `priority.asc`, `priority.desc`.
    ///
    /// - Complexity: O(*m*) for a name of *m* characters.
    public var description: String { "\(column).\(descending ? "desc" : "asc")" }
}
