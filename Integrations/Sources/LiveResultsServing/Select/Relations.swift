/// The relationships a route serves to `select=`'s embedded resources: what the validation of a request
/// consults, so that an embedded resource the route does not declare is refused as PostgREST refuses an
/// unknown relationship (`PGRST200`).
///
/// ```swift
/// let relations = PostgRESTRelations([
///     PostgRESTRelation(name: "people", foreignKey: "assignee_id", cardinality: .manyToOne,
///                       columns: ["id", "name"]),
/// ])
/// ```
public struct PostgRESTRelations: Sendable {
    /// The declared relationships.
    ///
    /// - Complexity: O(1).
    public var relations: [PostgRESTRelation]

    /// Relationships `relations`; none by default.
    ///
    /// - Complexity: O(1).
    public init(_ relations: [PostgRESTRelation] = []) {
        self.relations = relations
    }

    /// The relationship an embedded resource names: by its relation and, when given, its hint (the foreign
    /// key's column or constraint).
    ///
    /// - Complexity: O(*r*) for *r* relationships.
    public func relation(named name: String, hint: String?) -> PostgRESTRelation? {
        relations.first { $0.name == name && (hint == nil || hint == $0.foreignKey) }
    }
}

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
