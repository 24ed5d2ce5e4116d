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
