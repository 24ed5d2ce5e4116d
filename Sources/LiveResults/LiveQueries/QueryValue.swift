/// A typed value of a live query: what a filter compares a column with, and what a column of an entity holds.
///
/// ```swift
/// let filter = LiveQueryFilter(column: "priority", condition: .lessThan(.integer(3)))
/// ```
///
/// Values compare only with values of their own kind, as SQL's typed columns do; ``null`` matches no
/// comparison (only ``LiveQueryCondition/isNull``).
public enum QueryValue: Hashable, Sendable {
    /// A whole number: a column of an integer type.
    case integer(Int64)
    /// A floating-point number.
    case real(Double)
    /// Text, compared as `String` compares: for text in Unicode's normal form C that is the order of code
    /// points, as PostgreSQL's `COLLATE "C"` and SQLite's `BINARY` compare.
    case text(String)
    /// A Boolean.
    case boolean(Bool)
    /// No value (SQL's `NULL`).
    case null

    /// The value's kind; `nil` for ``null``.
    ///
    /// - Complexity: O(1).
    public var kind: QueryValueKind? {
        switch self {
        case .integer: .integer
        case .real: .real
        case .text: .text
        case .boolean: .boolean
        case .null: nil
        }
    }

    /// How `self` compares with `other`: negative, zero or positive; `nil` when either is ``null`` or their
    /// kinds differ (SQL's unknown: no filter matches it).
    ///
    /// - Complexity: O(1), O(*m*) for text of *m* characters.
    func compare(_ other: QueryValue) -> Int? {
        switch (self, other) {
        case (.integer(let a), .integer(let b)): a < b ? -1 : (a == b ? 0 : 1)
        // PostgreSQL's order: NaN after every number, and equal to itself.
        case (.real(let a), .real(let b)) where a.isNaN || b.isNaN: (a.isNaN ? 1 : 0) - (b.isNaN ? 1 : 0)
        case (.real(let a), .real(let b)): a < b ? -1 : (a == b ? 0 : 1)
        case (.text(let a), .text(let b)): a < b ? -1 : (a == b ? 0 : 1)
        case (.boolean(let a), .boolean(let b)): a == b ? 0 : (a ? 1 : -1)
        default: nil
        }
    }
}

extension QueryValue: CustomStringConvertible {
    /// The value as a query's normalised form writes it: text quoted when it could be read otherwise.
    ///
    /// - Complexity: O(*m*) for a value of *m* characters.
    public var description: String {
        switch self {
        case .integer(let value): String(value)
        case .real(let value): String(value)
        case .boolean(let value): String(value)
        case .null: "null"
        case .text(let value): Self.quoted(value)
        }
    }

    /// Text in double quotes, with `"` and `\` escaped: as PostgREST reads list elements.
    static func quoted(_ text: String) -> String {
        var result = "\""
        for character in text {
            if character == "\"" || character == "\\" { result.append("\\") }
            result.append(character)
        }
        return result + "\""
    }
}

/// The kinds of values a query column holds.
public enum QueryValueKind: String, Hashable, Sendable {
    /// Whole numbers (`Int`, `Int64`, `Int32`…).
    case integer
    /// Floating-point numbers (`Double`, `Float`).
    case real
    /// Text (`String`).
    case text
    /// Booleans (`true`, `false`).
    case boolean

    /// The value `text` spells in this kind, as a query's parameter writes it; `nil` when it spells none.
    ///
    /// - Complexity: O(*m*) for *m* characters.
    public func value(parsing text: Substring) -> QueryValue? {
        switch self {
        case .text: return .text(String(text))
        case .integer: return Int64(text.trimmingWhitespace()).map(QueryValue.integer)
        case .real:
            guard let value = Double(text.trimmingWhitespace()), value.isFinite else { return nil }
            return .real(value)
        case .boolean:
            switch text.trimmingWhitespace() {
            case "true": return .boolean(true)
            case "false": return .boolean(false)
            default: return nil
            }
        }
    }
}

extension Substring {
    /// The text without spaces, tabs and line breaks at either end.
    func trimmingWhitespace() -> Substring {
        let isSpace: (Character) -> Bool = { $0 == " " || $0 == "\t" || $0 == "\n" || $0 == "\r" }
        guard let first = firstIndex(where: { !isSpace($0) }), let last = lastIndex(where: { !isSpace($0) }) else {
            return self[endIndex...]
        }
        return self[first...last]
    }
}
