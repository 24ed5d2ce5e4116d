/// A Swift type whose values a live query can filter on: it names its ``QueryValueKind`` and converts each
/// value to a ``QueryValue``.
///
/// The integer types, `Double`, `Float`, `String`, `Bool` and their optionals conform.
public protocol QueryValueConvertible: Sendable {
    /// The kind of the type's values.
    static var queryValueKind: QueryValueKind { get }
    /// The value as a query compares it.
    var queryValue: QueryValue { get }
}

extension Int: QueryValueConvertible {
    /// ``QueryValueKind/integer``.
    ///
    /// - Complexity: O(1).
    public static var queryValueKind: QueryValueKind { .integer }
    /// The value as an ``QueryValue/integer(_:)``.
    ///
    /// - Complexity: O(1).
    public var queryValue: QueryValue { .integer(Int64(self)) }
}

extension Int64: QueryValueConvertible {
    /// ``QueryValueKind/integer``.
    ///
    /// - Complexity: O(1).
    public static var queryValueKind: QueryValueKind { .integer }
    /// The value as an ``QueryValue/integer(_:)``.
    ///
    /// - Complexity: O(1).
    public var queryValue: QueryValue { .integer(self) }
}

extension Int32: QueryValueConvertible {
    /// ``QueryValueKind/integer``.
    ///
    /// - Complexity: O(1).
    public static var queryValueKind: QueryValueKind { .integer }
    /// The value as an ``QueryValue/integer(_:)``.
    ///
    /// - Complexity: O(1).
    public var queryValue: QueryValue { .integer(Int64(self)) }
}

extension Int16: QueryValueConvertible {
    /// ``QueryValueKind/integer``.
    ///
    /// - Complexity: O(1).
    public static var queryValueKind: QueryValueKind { .integer }
    /// The value as an ``QueryValue/integer(_:)``.
    ///
    /// - Complexity: O(1).
    public var queryValue: QueryValue { .integer(Int64(self)) }
}

extension Double: QueryValueConvertible {
    /// ``QueryValueKind/real``.
    ///
    /// - Complexity: O(1).
    public static var queryValueKind: QueryValueKind { .real }
    /// The value as a ``QueryValue/real(_:)``.
    ///
    /// - Complexity: O(1).
    public var queryValue: QueryValue { .real(self) }
}

extension Float: QueryValueConvertible {
    /// ``QueryValueKind/real``.
    ///
    /// - Complexity: O(1).
    public static var queryValueKind: QueryValueKind { .real }
    /// The value as a ``QueryValue/real(_:)``.
    ///
    /// - Complexity: O(1).
    public var queryValue: QueryValue { .real(Double(self)) }
}

extension String: QueryValueConvertible {
    /// ``QueryValueKind/text``.
    ///
    /// - Complexity: O(1).
    public static var queryValueKind: QueryValueKind { .text }
    /// The value as ``QueryValue/text(_:)``.
    ///
    /// - Complexity: O(1).
    public var queryValue: QueryValue { .text(self) }
}

extension Bool: QueryValueConvertible {
    /// ``QueryValueKind/boolean``.
    ///
    /// - Complexity: O(1).
    public static var queryValueKind: QueryValueKind { .boolean }
    /// The value as a ``QueryValue/boolean(_:)``.
    ///
    /// - Complexity: O(1).
    public var queryValue: QueryValue { .boolean(self) }
}

extension Optional: QueryValueConvertible where Wrapped: QueryValueConvertible {
    /// The wrapped type's kind.
    ///
    /// - Complexity: O(1).
    public static var queryValueKind: QueryValueKind { Wrapped.queryValueKind }
    /// The wrapped value's, or ``QueryValue/null``.
    ///
    /// - Complexity: O(1).
    public var queryValue: QueryValue { map(\.queryValue) ?? .null }
}
