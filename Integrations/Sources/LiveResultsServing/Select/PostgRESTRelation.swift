/// A relationship of a route's table to another: its name in `select=`, the foreign key that makes it, and
/// the related table's columns.
public struct PostgRESTRelation: Sendable, Hashable {
    /// How many related rows each row has.
    public enum Cardinality: String, Sendable, Hashable {
        /// One or none: the row holds the foreign key (a to-do's assignee).
        case manyToOne
        /// Any number: the related rows hold the foreign key (a person's to-dos).
        case oneToMany
    }

    /// The name `select=` embeds it by: the related table's.
    ///
    /// - Complexity: O(1).
    public var name: String
    /// The foreign key's column, which a hint (`people!assignee_id(…)`) names.
    ///
    /// - Complexity: O(1).
    public var foreignKey: String
    /// One or many related rows.
    ///
    /// - Complexity: O(1).
    public var cardinality: Cardinality
    /// The related table's columns.
    ///
    /// - Complexity: O(1).
    public var columns: [String]

    /// A relationship named `name`.
    ///
    /// - Complexity: O(1).
    public init(name: String, foreignKey: String, cardinality: Cardinality, columns: [String]) {
        self.name = name
        self.foreignKey = foreignKey
        self.cardinality = cardinality
        self.columns = columns
    }
}
