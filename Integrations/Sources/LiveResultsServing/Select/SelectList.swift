import Foundation

/// What `select=` asks for, in PostgREST's syntax: the columns of each row, renamed or not, and the resources
/// embedded in it, nested to any depth.
///
/// ```swift
/// let select = try SelectList(parsing: "id,title,owner:people!assignee_id!inner(id,name)")
/// select.items[1]                    // .column(SelectColumn(name: "title"))
/// select.embeddedResources[0].alias  // "owner"
/// select.description                 // "id,title,owner:people!assignee_id!inner(id,name)"
/// ```
///
/// The parameters addressed to an embedded resource (`owner.order=name.desc`, `owner.limit=3`,
/// `owner.name=eq.Ann`) are kept on it, in ``EmbeddedResource/parameters``, by
/// ``PostgRESTQuery/init(parameters:table:)``.
public struct SelectList: Hashable, Sendable, CustomStringConvertible {
    /// The items, in the order the request names them.
    ///
    /// - Complexity: O(1).
    public var items: [SelectItem]

    /// A list of `items`.
    ///
    /// - Complexity: O(1).
    public init(_ items: [SelectItem]) {
        self.items = items
    }

    /// `*`: every column, the answer PostgREST gives without `select=`.
    ///
    /// - Complexity: O(1).
    public static var all: SelectList { SelectList([.all]) }

    /// The embedded resources at this level, in order.
    ///
    /// - Complexity: O(*i*) for *i* items.
    public var embeddedResources: [EmbeddedResource] {
        items.compactMap { if case .embedded(let resource) = $0 { resource } else { nil } }
    }

    /// The list in PostgREST's syntax, which parses back to this value.
    ///
    /// - Complexity: O(*m*) for *m* characters.
    public var description: String { items.map(\.description).joined(separator: ",") }
}

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

/// An aggregate function of `select=`.
public enum SelectAggregate: String, Hashable, Sendable, CaseIterable {
    case sum, avg, count, max, min
}

/// One step of a JSON path: `->` (a JSON value) or `->>` (text), by key or by index.
public struct JSONPathStep: Hashable, Sendable, CustomStringConvertible {
    /// Whether the step reads text (`->>`) rather than JSON (`->`).
    ///
    /// - Complexity: O(1).
    public var asText: Bool
    /// The key, or the index (`+1`, `-2`) when ``isIndex``.
    ///
    /// - Complexity: O(1).
    public var operand: String
    /// Whether ``operand`` is an array index.
    ///
    /// - Complexity: O(1).
    public var isIndex: Bool

    /// A step reading `operand`.
    ///
    /// - Complexity: O(1).
    public init(asText: Bool, operand: String, isIndex: Bool) {
        self.asText = asText
        self.operand = operand
        self.isIndex = isIndex
    }

    /// The step in PostgREST's syntax.
    ///
    /// - Complexity: O(*m*) for *m* characters.
    public var description: String {
        (asText ? "->>" : "->")
            + (isIndex ? String(operand.drop { $0 == "+" }) : _SelectSyntax.jsonKey(operand))
    }
}

/// How an embedded resource joins its parent.
public enum EmbeddedJoin: String, Hashable, Sendable {
    /// `!left`: every parent, with `null` or `[]` when nothing is related (the default).
    case left
    /// `!inner`: only the parents that have a related row.
    case inner
}

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

/// The query parameters addressed to an embedded resource, kept as written for the relations that read them:
/// `alias.order=name.desc`, `alias.limit=3`, `alias.offset=3`, `alias.column=eq.VALUE`.
public struct EmbeddedParameters: Hashable, Sendable {
    /// `alias.order`'s value, or `nil`.
    ///
    /// - Complexity: O(1).
    public var order: String?
    /// `alias.limit`'s value, or `nil`.
    ///
    /// - Complexity: O(1).
    public var limit: String?
    /// `alias.offset`'s value, or `nil`.
    ///
    /// - Complexity: O(1).
    public var offset: String?
    /// The filters on the resource's columns, in the URL's order: `(column, "eq.VALUE")`.
    ///
    /// - Complexity: O(1).
    public var filters: [EmbeddedFilter]

    /// Parameters with these values.
    ///
    /// - Complexity: O(1).
    public init(order: String? = nil, limit: String? = nil, offset: String? = nil, filters: [EmbeddedFilter] = []) {
        self.order = order
        self.limit = limit
        self.offset = offset
        self.filters = filters
    }

    /// Whether the request addressed nothing to the resource.
    ///
    /// - Complexity: O(1).
    public var isEmpty: Bool { order == nil && limit == nil && offset == nil && filters.isEmpty }
}

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

/// How names are written back in PostgREST's syntax.
enum _SelectSyntax {
    /// `name` as written, or double-quoted when it holds a character the grammar reserves.
    static func name(_ name: String) -> String {
        let plain =
            !name.isEmpty && name.first != " " && name.last != " " && !name.hasPrefix("-") && !name.hasSuffix("-")
            && !name.contains("--") && !name.contains("->") && !name.contains("...")
            && !name.contains(" -") && !name.contains("- ")
            && name.allSatisfy { $0.isLetter || ("0"..."9").contains($0) || "_ $-".contains($0) }
        return plain ? name : quoted(name)
    }

    /// A JSON key as written, or double-quoted when it holds a reserved character.
    static func jsonKey(_ key: String) -> String {
        let plain =
            !key.isEmpty && key.first != " " && key.last != " " && !key.hasPrefix("-") && !key.hasSuffix("-")
            && !key.contains("--") && !key.contains("\"") && Int(key) == nil
            && key.allSatisfy { !"(-:.,>)".contains($0) || $0 == "-" }
        return plain ? key : quoted(key)
    }

    static func quoted(_ text: String) -> String {
        "\"" + text.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "\"", with: "\\\"") + "\""
    }
}
