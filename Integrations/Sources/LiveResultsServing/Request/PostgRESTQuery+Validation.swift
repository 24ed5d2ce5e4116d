import LiveResults

extension PostgRESTQuery {
    /// The operators PostgREST knows, besides `not.`: what is not among them does not parse.
    static let knownOperators: Set<String> = [
        "eq", "neq", "gt", "gte", "lt", "lte", "like", "ilike", "match", "imatch", "in", "is", "isdistinct", "fts",
        "plfts", "phfts", "wfts", "cs", "cd", "ov", "sl", "sr", "nxr", "nxl", "adj",
    ]
    /// The operators a live query serves.
    static let servedOperators: Set<String> = ["eq", "neq", "gt", "gte", "lt", "lte", "in", "is"]

    /// Checks the query against `Entity`'s columns and the route's `relations`, as PostgREST checks a request
    /// against its schema, before `LiveQueryRequest` reads the rest.
    ///
    /// - Throws: ``PostgRESTError``: `42703` for a column `Entity` does not have (in `select=`, a filter or
    ///   `order`); `PGRST100` for a filter whose operator PostgREST does not know; `PGRST200` for an embedded
    ///   resource `relations` does not declare (`PGRST201` for one it declares twice); `PGRST127` for what
    ///   PostgREST does and this server does not (JSON paths, casts, aggregates, spreads, `like` and the other
    ///   operators, `not.`, `and`/`or`, `on_conflict`). Embedded resources are checked against their own tables,
    ///   at every depth.
    /// - Complexity: O(*p* · *c*) for *p* parameters and select items and *c* columns.
    public func validate<Entity: QueryableEntity>(
        for entity: Entity.Type, relations: LiveRelations = LiveRelations()
    ) throws(PostgRESTError) {
        let columns = Set(Entity.queryColumns.map(\.name))
        if let name = unsupported.first {
            throw .notImplemented("the parameter \(name) is not supported")
        }
        try Self.validate(select, columns: columns, table: table, relations: relations)
        for (name, value) in queryParameters {
            switch name {
            case "limit", "offset", "since":
                continue
            case "order":
                try Self.validateOrder(value, columns: columns, table: table)
            default:
                guard columns.contains(name) else { throw .undefinedColumn(name, of: table) }
                try Self.validateOperator(value)
            }
        }
    }

    /// `select=`'s columns and embedded resources, at any depth.
    static func validate(
        _ select: SelectList, columns: Set<String>, table: String, relations: LiveRelations
    ) throws(PostgRESTError) {
        for item in select.items {
            switch item {
            case .all:
                continue
            case .column(let column):
                guard column.name == "*" || columns.contains(column.name) else {
                    throw .undefinedColumn(column.name, of: table)
                }
                guard column.isPlain else {
                    throw .notImplemented("select= takes columns and aliases only, not \(column)")
                }
            case .embedded(let resource):
                let relationship = try relations.relationship(from: table, for: resource)
                let target = relationship.target
                // A to-many spread writes each column as an array of the children's values; an embedded resource
                // of the children has no such array form.
                guard !resource.isSpread || relationship.isToOne || resource.select.embeddedResources.isEmpty else {
                    throw .notImplemented(
                        "a spread of a to-many relationship (...\(resource.relation)) takes columns only")
                }
                let targetColumns = Set(target.columns)
                try validate(resource.select, columns: targetColumns, table: target.name, relations: relations)
                for filter in resource.parameters.filters {
                    guard targetColumns.contains(filter.column) else {
                        throw .undefinedColumn(filter.column, of: target.name)
                    }
                    try validateOperator(filter.condition)
                }
                try validateOrder(resource.parameters.order ?? "", columns: targetColumns, table: target.name)
            }
        }
    }

    /// `order=`'s columns are the table's.
    static func validateOrder(_ order: String, columns: Set<String>, table: String) throws(PostgRESTError) {
        for term in order.split(separator: ",") {
            let column = String(term.split(separator: ".").first ?? "").trimmingSpaces()
            if !column.isEmpty, !columns.contains(column) { throw .undefinedColumn(column, of: table) }
        }
    }

    /// `OPERATOR.VALUE` or `not.OPERATOR.VALUE`: an operator PostgREST knows, and one a live query serves.
    static func validateOperator(_ value: String) throws(PostgRESTError) {
        var rest = Substring(value)
        let negated = rest.hasPrefix("not.")
        if negated { rest = rest.dropFirst(4) }
        let name = rest.prefix { $0 != "." && $0 != "(" }
        guard knownOperators.contains(String(name)) else {
            let position = negated ? 5 : 1
            let unexpected = rest.first.map { "unexpected \"\($0)\"" } ?? "unexpected end of input"
            throw .parse(
                "filter", text: value, column: position,
                details: "\(unexpected) expecting \(negated ? "" : "\"not\" or ")operator (eq, gt, ...)")
        }
        guard servedOperators.contains(String(name)), rest.dropFirst(name.count).first == "." else {
            throw .notImplemented(
                "filters take eq, neq, lt, lte, gt, gte, in and is.null, each negated by not., here, not "
                    + "\(value.prefix { $0 != "." })" + (negated ? ".\(name)" : ""))
        }
    }
}
