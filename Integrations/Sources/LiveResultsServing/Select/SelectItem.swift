/// One item of a ``SelectList``.
public enum SelectItem: Hashable, Sendable, CustomStringConvertible {
    /// `*`: every column.
    case all
    /// A column, perhaps renamed, cast or aggregated.
    case column(SelectColumn)
    /// An embedded resource: `alias:table!hint!inner(…)`, or a spread `...table(…)`.
    case embedded(EmbeddedResource)

    /// The item in PostgREST's syntax.
    ///
    /// - Complexity: O(*m*) for *m* characters.
    public var description: String {
        switch self {
        case .all: "*"
        case .column(let column): column.description
        case .embedded(let resource): resource.description
        }
    }
}
