/// An embedded resource of `select=`: `alias:relation!hint!inner(…)`, or a spread `...relation(…)`, with the
/// parameters the request addresses to it.
public struct EmbeddedResource: Hashable, Sendable, CustomStringConvertible {
    /// The related table (or relationship) the request names.
    ///
    /// - Complexity: O(1).
    public var relation: String
    /// The key the embedded rows have in the answer instead of ``relation``, or `nil`.
    ///
    /// - Complexity: O(1).
    public var alias: String?
    /// Which relationship to take when there are several (`!fk_name`), or `nil`.
    ///
    /// - Complexity: O(1).
    public var hint: String?
    /// `!inner` or `!left`, or `nil` when the request names neither.
    ///
    /// - Complexity: O(1).
    public var join: EmbeddedJoin?
    /// Whether the resource's columns are spread into the parent (`...relation(…)`).
    ///
    /// - Complexity: O(1).
    public var isSpread: Bool
    /// What is selected of each embedded row.
    ///
    /// - Complexity: O(1).
    public var select: SelectList
    /// The parameters addressed to this resource: `alias.order`, `alias.limit`, `alias.offset` and filters.
    ///
    /// - Complexity: O(1).
    public var parameters: EmbeddedParameters

    /// An embedded resource of `relation`.
    ///
    /// - Complexity: O(1).
    public init(
        relation: String, alias: String? = nil, hint: String? = nil, join: EmbeddedJoin? = nil,
        isSpread: Bool = false, select: SelectList, parameters: EmbeddedParameters = EmbeddedParameters()
    ) {
        self.relation = relation
        self.alias = alias
        self.hint = hint
        self.join = join
        self.isSpread = isSpread
        self.select = select
        self.parameters = parameters
    }

    /// The name parameters address it by, and its key in the answer: its alias, else its relation.
    ///
    /// - Complexity: O(1).
    public var key: String { alias ?? relation }

    /// The resource in PostgREST's syntax (without its parameters, which are query parameters of their own).
    ///
    /// - Complexity: O(*m*) for *m* characters.
    public var description: String {
        var text = isSpread ? "..." : alias.map { _SelectSyntax.name($0) + ":" } ?? ""
        text += _SelectSyntax.name(relation)
        if let hint { text += "!" + _SelectSyntax.name(hint) }
        if let join { text += "!" + join.rawValue }
        return text + "(" + select.description + ")"
    }
}

extension EmbeddedResource {
    /// Whether the resource leaves parent rows out: `!inner`, `alias=not.is.null` or `alias=is.null`.
    var filtersParents: Bool { join == .inner || parameters.requiresRelatedRow != nil }

    /// Whether a parent row is kept, given whether it has a related row after the resource's filters.
    func keepsParent(withRelatedRow hasRelated: Bool) -> Bool {
        if join == .inner || parameters.requiresRelatedRow == true { return hasRelated }
        return parameters.requiresRelatedRow != false || !hasRelated
    }
}
