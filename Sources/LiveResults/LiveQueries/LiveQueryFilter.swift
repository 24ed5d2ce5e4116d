/// One condition of a live query on one column: `project = 'home'`, `priority < 3`, `owner IN (…)`.
///
/// ```swift
/// let mine = LiveQueryFilter(column: "owner_id", condition: .equal(.integer(callerID)))
/// let urgent: [LiveQueryFilter] = [.equal("project", "home"), .greaterThanOrEqual("priority", 3)]
/// ```
///
/// Each condition has a shorthand that takes a Swift value (``equal(_:_:)``, ``greaterThanOrEqual(_:_:)``,
/// ``in(_:_:)``, ``isNull(_:)``…): `.greaterThanOrEqual("priority", 3)` is
/// `LiveQueryFilter(column: "priority", condition: .greaterThanOrEqual(.integer(3)))`.
///
/// Conditions follow SQL: a column that is `NULL` matches only ``LiveQueryCondition/isNull``.
public struct LiveQueryFilter: Hashable, Sendable {
    /// The column's name.
    ///
    /// - Complexity: O(1).
    public var column: String
    /// What the column's value must satisfy.
    ///
    /// - Complexity: O(1).
    public var condition: LiveQueryCondition

    /// A filter on `column`.
    ///
    /// - Complexity: O(1).
    public init(column: String, condition: LiveQueryCondition) {
        self.column = column
        self.condition = condition
    }

    /// A filter that `column` equals `value`.
    ///
    /// - Complexity: O(1).
    public static func equal(_ column: String, _ value: some QueryValueConvertible) -> LiveQueryFilter {
        LiveQueryFilter(column: column, condition: .equal(value.queryValue))
    }

    /// A filter that `column` is not equal to `value` (and not `NULL`): PostgREST's `neq`.
    ///
    /// - Complexity: O(1).
    public static func notEqual(_ column: String, _ value: some QueryValueConvertible) -> LiveQueryFilter {
        LiveQueryFilter(column: column, condition: .notEqual(value.queryValue))
    }

    /// A filter that `column` is less than `value`: PostgREST's `lt`.
    ///
    /// - Complexity: O(1).
    public static func lessThan(_ column: String, _ value: some QueryValueConvertible) -> LiveQueryFilter {
        LiveQueryFilter(column: column, condition: .lessThan(value.queryValue))
    }

    /// A filter that `column` is less than or equal to `value`: PostgREST's `lte`.
    ///
    /// - Complexity: O(1).
    public static func lessThanOrEqual(_ column: String, _ value: some QueryValueConvertible) -> LiveQueryFilter {
        LiveQueryFilter(column: column, condition: .lessThanOrEqual(value.queryValue))
    }

    /// A filter that `column` is greater than `value`: PostgREST's `gt`.
    ///
    /// - Complexity: O(1).
    public static func greaterThan(_ column: String, _ value: some QueryValueConvertible) -> LiveQueryFilter {
        LiveQueryFilter(column: column, condition: .greaterThan(value.queryValue))
    }

    /// A filter that `column` is greater than or equal to `value`: PostgREST's `gte`.
    ///
    /// - Complexity: O(1).
    public static func greaterThanOrEqual(_ column: String, _ value: some QueryValueConvertible) -> LiveQueryFilter {
        LiveQueryFilter(column: column, condition: .greaterThanOrEqual(value.queryValue))
    }

    /// A filter that `column` equals one of `values` (none: nothing matches): PostgREST's `in`.
    ///
    /// - Complexity: O(*k*) for *k* values.
    public static func `in`<Value: QueryValueConvertible>(_ column: String, _ values: [Value]) -> LiveQueryFilter {
        LiveQueryFilter(column: column, condition: .in(values.map(\.queryValue)))
    }

    /// A filter that `column` is `NULL`: PostgREST's `is.null`.
    ///
    /// - Complexity: O(1).
    public static func isNull(_ column: String) -> LiveQueryFilter {
        LiveQueryFilter(column: column, condition: .isNull)
    }

    /// A filter that `column` is not `NULL`: PostgREST's `not.is.null`.
    ///
    /// - Complexity: O(1).
    public static func isNotNull(_ column: String) -> LiveQueryFilter {
        LiveQueryFilter(column: column, condition: .isNotNull)
    }

    /// A filter that `column` is not `NULL` and equals none of `values` (none: everything matches):
    /// PostgREST's `not.in`.
    ///
    /// - Complexity: O(*k*) for *k* values.
    public static func notIn<Value: QueryValueConvertible>(_ column: String, _ values: [Value]) -> LiveQueryFilter {
        LiveQueryFilter(column: column, condition: .notIn(values.map(\.queryValue)))
    }
}

/// What a column's value must satisfy: PostgREST's operators.
public enum LiveQueryCondition: Hashable, Sendable {
    /// `eq`: equal to the value.
    case equal(QueryValue)
    /// `neq`: not equal to the value (and not `NULL`).
    case notEqual(QueryValue)
    /// `lt`: less than the value.
    case lessThan(QueryValue)
    /// `lte`: less than or equal to the value.
    case lessThanOrEqual(QueryValue)
    /// `gt`: greater than the value.
    case greaterThan(QueryValue)
    /// `gte`: greater than or equal to the value.
    case greaterThanOrEqual(QueryValue)
    /// `in`: equal to one of the values (none: nothing matches).
    case `in`([QueryValue])
    /// `is.null`: the column is `NULL`.
    case isNull
    /// `not.is.null` (or `is.not_null`): the column is not `NULL`.
    case isNotNull
    /// `not.in`: not `NULL` and equal to none of the values (none: everything matches, `NULL` too, as SQL's
    /// `NOT (column = ANY('{}'))` does).
    case notIn([QueryValue])

    /// Whether `value` satisfies the condition, as SQL would decide.
    ///
    /// - Complexity: O(1); O(*k*) for ``in(_:)`` of *k* values.
    public func isSatisfied(by value: QueryValue) -> Bool {
        switch self {
        case .isNull: return value == .null
        case .equal(let other): return value.compare(other) == 0
        case .notEqual(let other): return value.compare(other).map { $0 != 0 } ?? false
        case .lessThan(let other): return value.compare(other).map { $0 < 0 } ?? false
        case .lessThanOrEqual(let other): return value.compare(other).map { $0 <= 0 } ?? false
        case .greaterThan(let other): return value.compare(other).map { $0 > 0 } ?? false
        case .greaterThanOrEqual(let other): return value.compare(other).map { $0 >= 0 } ?? false
        case .in(let values): return value != .null && values.contains { value.compare($0) == 0 }
        case .isNotNull: return value != .null
        case .notIn(let values):
            return values.isEmpty || (value != .null && !values.contains { value.compare($0) == 0 })
        }
    }

    /// PostgREST's name of the operator.
    ///
    /// - Complexity: O(1).
    public var operatorName: String {
        switch self {
        case .equal: "eq"
        case .notEqual: "neq"
        case .lessThan: "lt"
        case .lessThanOrEqual: "lte"
        case .greaterThan: "gt"
        case .greaterThanOrEqual: "gte"
        case .in: "in"
        case .isNull, .isNotNull: "is"
        case .notIn: "not.in"
        }
    }

    /// The values the condition names.
    ///
    /// - Complexity: O(1).
    public var values: [QueryValue] {
        switch self {
        case .equal(let value), .notEqual(let value), .lessThan(let value), .lessThanOrEqual(let value),
            .greaterThan(let value), .greaterThanOrEqual(let value):
            [value]
        case .in(let values), .notIn(let values): values
        case .isNull, .isNotNull: []
        }
    }

    /// The condition that selects what SQL's `NOT` of this one selects (`not.lt.3` is `gte.3`: `NULL` satisfies
    /// neither); `nil` for ``notIn(_:)``, which PostgREST does not negate again.
    var negated: LiveQueryCondition? {
        switch self {
        case .equal(let value): .notEqual(value)
        case .notEqual(let value): .equal(value)
        case .lessThan(let value): .greaterThanOrEqual(value)
        case .lessThanOrEqual(let value): .greaterThan(value)
        case .greaterThan(let value): .lessThanOrEqual(value)
        case .greaterThanOrEqual(let value): .lessThan(value)
        case .in(let values): .notIn(values)
        case .isNull: .isNotNull
        case .isNotNull: .isNull
        case .notIn: nil
        }
    }

    /// The values an entity's column must hold to match, when the condition names them all (`eq`, `in`): what
    /// a router indexes.
    var matchingValues: [QueryValue]? {
        switch self {
        case .equal(let value): [value]
        case .in(let values): values
        default: nil
        }
    }
}

extension LiveQueryFilter: CustomStringConvertible {
    /// The filter in PostgREST's form, values normalised: `priority=lt.3`, `project=in.("a","b")`.
    ///
    /// - Complexity: O(*m*) for *m* characters.
    public var description: String {
        switch condition {
        case .isNull: return "\(column)=is.null"
        case .isNotNull: return "\(column)=not.is.null"
        case .in(let values), .notIn(let values):
            return "\(column)=\(condition.operatorName).(\(values.map(\.description).joined(separator: ",")))"
        default: return "\(column)=\(condition.operatorName).\(condition.values[0])"
        }
    }
}
