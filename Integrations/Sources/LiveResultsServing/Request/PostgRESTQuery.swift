import Foundation
import LiveResults

/// A request's query parameters in PostgREST's syntax, sorted by what reads them: `select=` (parsed, with the
/// parameters addressed to its embedded resources), `sections=`, a write's `columns=`, and the rest (filters,
/// `order`, `limit`, `offset`), which `LiveQueryRequest` reads.
///
/// ```swift
/// // GET /todos?select=id,title&project=eq.Home&order=priority.desc&limit=20
/// let query = try PostgRESTQuery(parameters: parameters, table: "todos")
/// query.select              // id,title
/// query.queryParameters     // [("project", "eq.Home"), ("order", "priority.desc"), ("limit", "20")]
/// try query.validate(for: Todo.self)
/// ```
public struct PostgRESTQuery: Sendable {
    /// The table the route serves, as errors name it (`column todos.x does not exist`).
    ///
    /// - Complexity: O(1).
    public var table: String
    /// What `select=` asks for; ``SelectList/all`` without it.
    ///
    /// - Complexity: O(1).
    public var select: SelectList
    /// The column `sections=` asks the results to be sectioned by, or `nil` for one section.
    ///
    /// - Complexity: O(1).
    public var sections: String?
    /// A write's `columns=`: the keys of the body it takes, or `nil` for all of them.
    ///
    /// - Complexity: O(1).
    public var columns: [String]?
    /// The parameters for `LiveQueryRequest`: filters on the table's columns, `order`, `limit`, `offset`,
    /// `since`, in the URL's order.
    ///
    /// - Complexity: O(1).
    public var queryParameters: [(String, String)]
    /// Parameters PostgREST defines that this server does not serve (`on_conflict`, `and`, `or`), by name.
    ///
    /// - Complexity: O(1).
    public var unsupported: [String]

    /// The names of the parameters that are not filters.
    static let reserved: Set<String> = ["select", "sections", "columns", "on_conflict"]

    /// Sorts `parameters` (names and values percent-decoded, in the URL's order).
    ///
    /// A parameter whose name has dots (`owner.limit`, `owner.name`, `owner.pets.order`) is addressed to the
    /// embedded resource the path names, by its alias (or its relation when it has none), and kept in its
    /// ``EmbeddedResource/parameters``.
    ///
    /// - Throws: ``PostgRESTError``: `PGRST100` when `select=` or `columns=` does not parse, `PGRST108` when a
    ///   parameter addresses a resource `select=` does not embed.
    /// - Complexity: O(*m*) for *m* characters, plus O(*p* · *e*) for *p* parameters addressed to *e* embedded
    ///   resources.
    public init(parameters: some Sequence<(String, String)>, table: String) throws(PostgRESTError) {
        self.table = table
        let parameters = Array(parameters)
        select =
            try parameters.last { $0.0 == "select" }.map { pair throws(PostgRESTError) in
                try SelectList(parsing: pair.1)
            } ?? .all
        sections = parameters.last { $0.0 == "sections" }.map(\.1)
        columns = try parameters.last { $0.0 == "columns" }.map { pair throws(PostgRESTError) in
            try Self.columns(pair.1)
        }
        queryParameters = []
        unsupported = []
        // An empty name (`?&a=1`) is no parameter, as PostgREST reads a query string.
        for (name, value) in parameters where !name.isEmpty && !Self.reserved.contains(name) {
            if name == "and" || name == "or" || name == "not.and" || name == "not.or" {
                unsupported.append(name)
            } else if name.contains(".") {
                try address(name, value)
            } else if select.embeddedResources.contains(where: { $0.key == name }) {
                try Self.withResource(at: [name], in: &select) {
                    (resource: inout EmbeddedResource) throws(PostgRESTError) in
                    resource.parameters.requiresRelatedRow = try Self.requiresRelatedRow(value, of: name)
                }
            } else {
                queryParameters.append((name, value))
            }
        }
        if parameters.contains(where: { $0.0 == "on_conflict" }) { unsupported.append("on_conflict") }
    }

    /// The parameters of a URL's query string as PostgREST reads them: split at `&` and the first `=`, `+` read
    /// as a space (as HTML forms and postgrest-py's HTTP client send it), then percent-decoded; empty names
    /// left out.
    ///
    /// ```swift
    /// PostgRESTQuery.parameters(fromQuery: "title=eq.a+b&project=eq.%48ome")   // [("title", "eq.a b"), ("project", "eq.Home")]
    /// ```
    ///
    /// - Complexity: O(*m*) for *m* characters.
    public static func parameters(fromQuery query: String?) -> [(String, String)] {
        guard let query, !query.isEmpty else { return [] }
        return query.split(separator: "&").compactMap { pair in
            let parts = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            func decoded(_ text: Substring) -> String {
                let spaced = text.replacingOccurrences(of: "+", with: " ")
                return spaced.removingPercentEncoding ?? spaced
            }
            let name = decoded(parts[0])
            return name.isEmpty ? nil : (name, parts.count > 1 ? decoded(parts[1]) : "")
        }
    }

    /// Keeps `name=value` on the embedded resource its dotted path names.
    private mutating func address(_ name: String, _ value: String) throws(PostgRESTError) {
        var path = name.split(separator: ".", omittingEmptySubsequences: false).map(String.init)
        let last = path.removeLast()
        try Self.withResource(at: path[...], in: &select) { (resource: inout EmbeddedResource) throws(PostgRESTError) in
            switch last {
            case "order": resource.parameters.order = value
            case "limit": resource.parameters.limit = value
            case "offset": resource.parameters.offset = value
            case "and", "or": throw PostgRESTError.notImplemented("logic trees (and=, or=) are not supported")
            case let key where resource.select.embeddedResources.contains(where: { $0.key == key }):
                try Self.withResource(at: [key], in: &resource.select) {
                    (nested: inout EmbeddedResource) throws(PostgRESTError) in
                    nested.parameters.requiresRelatedRow = try Self.requiresRelatedRow(value, of: name)
                }
            default: resource.parameters.filters.append(EmbeddedFilter(column: last, condition: value))
            }
        }
    }

    /// What `name=value` addressed to an embedded resource asks: `not.is.null` (or `is.not_null`) a related
    /// row, `is.null` none.
    ///
    /// - Throws: `PGRST127` for another condition, which PostgREST takes on a resource only in logic trees.
    private static func requiresRelatedRow(_ value: String, of name: String) throws(PostgRESTError) -> Bool {
        switch value {
        case "not.is.null", "is.not_null": return true
        case "is.null": return false
        default: throw .notImplemented("an embedded resource (\(name)) is filtered by is.null or not.is.null only")
        }
    }

    /// Runs `change` on the resource `path` names in `select`, at any depth.
    private static func withResource(
        at path: ArraySlice<String>, in select: inout SelectList,
        _ change: (inout EmbeddedResource) throws(PostgRESTError) -> Void
    ) throws(PostgRESTError) {
        guard let name = path.first else { return }
        guard
            let position = select.items.firstIndex(where: {
                if case .embedded(let resource) = $0 { resource.key == name } else { false }
            }), case .embedded(var resource) = select.items[position]
        else {
            let aliased = select.embeddedResources.first { $0.relation == name && $0.alias != nil }
            throw .notEmbedded(name, alias: aliased?.alias)
        }
        if path.count == 1 {
            try change(&resource)
        } else {
            try withResource(at: path.dropFirst(), in: &resource.select, change)
        }
        select.items[position] = .embedded(resource)
    }

    /// `columns=`: names separated by commas, each plain or double-quoted (postgrest-py quotes them).
    static func columns(_ text: String) throws(PostgRESTError) -> [String] {
        var parser = _SelectParser(text)
        var names: [String] = []
        repeat {
            parser.skipSpaces()
            guard let name = parser.fieldName() else { throw parser.error(parsing: "columns parameter", text: text) }
            names.append(name)
            parser.skipSpaces()
        } while parser.take(",")
        guard parser.current == nil else {
            _ = parser.fail(expecting: "\",\" or end of input") as Void?
            throw parser.error(parsing: "columns parameter", text: text)
        }
        return names
    }
}
