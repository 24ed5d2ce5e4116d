/// What a client asked for, read from a URL's query in PostgREST's syntax: a ``LiveQuery`` and the window of
/// its results.
///
/// ```swift
/// // GET /todos?project=eq.home&priority=lt.3&order=priority.desc&limit=50&offset=100
/// let request = try LiveQueryRequest<Todo>(parameters: url.queryItems, rules: rules)
/// request.query    // project = "home" AND priority < 3, ordered by priority descending, then id
/// request.window   // .range(offset: 100, limit: 50)
/// ```
///
/// The parameters:
/// - `column=OPERATOR.VALUE` filters, ANDed: `eq`, `neq`, `lt`, `lte`, `gt`, `gte`, `in.(a,b,…)` (an element
///   may be double-quoted, with `\"` and `\\` inside, to hold a comma or a parenthesis), and `is.null`. The
///   value is read as the column's kind; text is taken as written, a number or a Boolean without spaces
///   around it, and an unquoted `in` element without them too.
/// - `order=column.asc,column2.desc` (`.asc` may be left out); the id column ends it.
/// - `limit` and `offset`: the window (the *LiveWindows* article), positions across the sections. Without
///   `limit`, the window holds the first ``LiveQueryRules/maximumLimit`` results from `offset`.
/// - `since`: a version to resume from, which this type ignores (the stream reads it).
///
/// A column that is not allowed, an unknown operator, a value that is not of the column's kind, a `limit`
/// out of range, an `in` list over ``LiveQueryRules/maximumListLength``, or `order`, `limit` or `offset`
/// given twice throw ``LiveQueryError`` naming the parameter. A filter given twice is ANDed with itself (it
/// counts once).
public struct LiveQueryRequest<Entity: QueryableEntity>: Sendable {
    /// The query, normalised.
    ///
    /// - Complexity: O(1).
    public var query: LiveQuery<Entity>
    /// The window of its results.
    ///
    /// - Complexity: O(1).
    public var window: WindowRange

    /// The parameters that are not filters.
    static var reservedNames: Set<String> { ["order", "limit", "offset", "since"] }

    /// Reads `parameters` (decoded names and values, in the URL's order) by `rules`, with `conditions` ANDed
    /// to the client's filters (see ``LiveQuery/adding(_:)``).
    ///
    /// - Throws: ``LiveQueryError`` naming the parameter at fault.
    /// - Complexity: O(*m* + *v* log *v*) for *m* characters naming *v* values.
    public init(
        parameters: some Sequence<(String, String)>, rules: LiveQueryRules, conditions: [LiveQueryFilter] = []
    ) throws(LiveQueryError) {
        var filters: [LiveQueryFilter] = []
        var once: [String: String] = [:]
        for (name, value) in parameters {
            if Self.reservedNames.contains(name) {
                guard once.updateValue(value, forKey: name) == nil else {
                    throw LiveQueryError(parameter: name, problem: "is given more than once")
                }
                continue
            }
            guard rules.filters.contains(name), let column = Entity.queryColumn(named: name) else {
                throw LiveQueryError(parameter: name, problem: "is not a column you may filter on")
            }
            filters.append(
                LiveQueryFilter(
                    column: name,
                    condition: try Self.condition(Substring(value), kind: column.kind, parameter: name, rules: rules)))
        }
        let order = try once["order"].map { text throws(LiveQueryError) in try Self.order(text, rules: rules) }
        query = try LiveQuery(
            filters: filters + conditions, order: order ?? rules.defaultOrder, sectionedBy: rules.sectionedBy)
        let limit = try once["limit"].map { text throws(LiveQueryError) in
            try Self.count(text, parameter: "limit", maximum: rules.maximumLimit)
        }
        let offset = try once["offset"].map { text throws(LiveQueryError) in
            try Self.count(text, parameter: "offset", maximum: .max)
        }
        window = .range(offset: offset ?? 0, limit: limit ?? rules.maximumLimit)
    }

    // MARK: Reading

    /// `OPERATOR.VALUE` or `not.OPERATOR.VALUE` for a column of `kind`.
    static func condition(
        _ text: Substring, kind: QueryValueKind, parameter: String, rules: LiveQueryRules
    ) throws(LiveQueryError) -> LiveQueryCondition {
        if text.hasPrefix("not.") {
            let negated = try condition(text.dropFirst(4), kind: kind, parameter: parameter, rules: rules)
            guard let condition = negated.negated, !text.dropFirst(4).hasPrefix("not.") else {
                throw LiveQueryError(parameter: parameter, problem: "negates an operator once, not \(text)")
            }
            return condition
        }
        guard let dot = text.firstIndex(of: ".") else {
            throw LiveQueryError(parameter: parameter, problem: "wants OPERATOR.VALUE, such as eq.1, not \(text)")
        }
        let operatorName = text[..<dot]
        let operand = text[text.index(after: dot)...]
        func value() throws(LiveQueryError) -> QueryValue {
            guard let value = kind.value(parsing: operand) else {
                throw LiveQueryError(parameter: parameter, problem: "holds \(kind.rawValue) values, not \(operand)")
            }
            return value
        }
        switch operatorName {
        case "eq": return .equal(try value())
        case "neq": return .notEqual(try value())
        case "lt": return .lessThan(try value())
        case "lte": return .lessThanOrEqual(try value())
        case "gt": return .greaterThan(try value())
        case "gte": return .greaterThanOrEqual(try value())
        case "is":
            switch operand {
            case "null": return .isNull
            case "not_null": return .isNotNull
            default:
                throw LiveQueryError(
                    parameter: parameter, problem: "supports is.null and is.not_null only, not is.\(operand)")
            }
        case "in":
            let elements = try listElements(operand, parameter: parameter)
            guard elements.count <= rules.maximumListLength else {
                throw LiveQueryError(
                    parameter: parameter,
                    problem: "lists at most \(rules.maximumListLength) values, not \(elements.count)")
            }
            var values: [QueryValue] = []
            values.reserveCapacity(elements.count)
            for element in elements {
                guard let value = kind.value(parsing: element[...]) else {
                    throw LiveQueryError(parameter: parameter, problem: "holds \(kind.rawValue) values, not \(element)")
                }
                values.append(value)
            }
            return .in(values)
        default:
            throw LiveQueryError(
                parameter: parameter,
                problem:
                    "has no operator \(operatorName) (eq, neq, lt, lte, gt, gte, in, is.null, each negated by not.)")
        }
    }

    /// The elements of `(a,b,"c,d")`: unquoted ones without surrounding spaces, quoted ones as written.
    static func listElements(_ text: Substring, parameter: String) throws(LiveQueryError) -> [String] {
        let list = text.trimmingWhitespace()
        guard list.first == "(", list.last == ")", list.count >= 2 else {
            throw LiveQueryError(parameter: parameter, problem: "wants in.(a,b,…), not in.\(text)")
        }
        let inside = list.dropFirst().dropLast()
        guard !inside.trimmingWhitespace().isEmpty else { return [] }
        var elements: [String] = []
        var current = ""
        var quoted = false, wasQuoted = false, escaped = false
        for character in inside {
            if escaped {
                current.append(character)
                escaped = false
            } else if quoted {
                if character == "\\" {
                    escaped = true
                } else if character == "\"" {
                    quoted = false
                } else {
                    current.append(character)
                }
            } else if character == "\"" {
                guard Substring(current).trimmingWhitespace().isEmpty else {
                    throw LiveQueryError(parameter: parameter, problem: "has a quote inside a value: in.\(text)")
                }
                (current, quoted, wasQuoted) = ("", true, true)
            } else if character == "," {
                elements.append(wasQuoted ? current : String(Substring(current).trimmingWhitespace()))
                (current, wasQuoted) = ("", false)
            } else if !wasQuoted || character != " " {
                current.append(character)
            }
        }
        guard !quoted, !escaped else {
            throw LiveQueryError(parameter: parameter, problem: "has an unclosed quote: in.\(text)")
        }
        elements.append(wasQuoted ? current : String(Substring(current).trimmingWhitespace()))
        return elements
    }

    /// `column.asc,column2.desc`, each column allowed.
    static func order(_ text: String, rules: LiveQueryRules) throws(LiveQueryError) -> [LiveQueryOrdering] {
        var order: [LiveQueryOrdering] = []
        for part in text.split(separator: ",", omittingEmptySubsequences: false) {
            let item = part.trimmingWhitespace()
            var column = item
            var descending = false
            if let dot = item.lastIndex(of: ".") {
                column = item[..<dot].trimmingWhitespace()
                switch item[item.index(after: dot)...].trimmingWhitespace() {
                case "asc": descending = false
                case "desc": descending = true
                default:
                    throw LiveQueryError(parameter: "order", problem: "wants column.asc or column.desc, not \(item)")
                }
            }
            guard rules.orders.contains(String(column)) else {
                throw LiveQueryError(
                    parameter: "order", problem: "cannot be by \(column.isEmpty ? "nothing" : String(column))")
            }
            order.append(LiveQueryOrdering(column: String(column), descending: descending))
        }
        return order
    }

    /// A non-negative integer up to `maximum`.
    static func count(_ text: String, parameter: String, maximum: Int) throws(LiveQueryError) -> Int {
        guard let count = Int(Substring(text).trimmingWhitespace()), count >= 0 else {
            throw LiveQueryError(parameter: parameter, problem: "must be a non-negative integer")
        }
        guard count <= maximum else {
            throw LiveQueryError(parameter: parameter, problem: "must be at most \(maximum)")
        }
        return count
    }
}
