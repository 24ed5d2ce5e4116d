import Foundation

/// A value that a request wrapper can send as text: ``QueryItem``, ``RequestHeader`` and
/// ``RequestPathParameter`` accept these.
///
/// Strings, integers, floating-point numbers, `Bool` and `UUID` give one value; an `Optional` gives none
/// when `nil`; an `Array` gives one per element (a query item repeated). Adopt it for your own types.
public protocol RequestParameterValue: Sendable {
    /// The texts sent: none, one, or several.
    var parameterValues: [String] { get }
}

extension RequestParameterValue where Self: LosslessStringConvertible {
    /// The value's `description`.
    public var parameterValues: [String] { [description] }
}

extension String: RequestParameterValue {}
extension Substring: RequestParameterValue {}
extension Int: RequestParameterValue {}
extension Int32: RequestParameterValue {}
extension Int64: RequestParameterValue {}
extension UInt: RequestParameterValue {}
extension UInt32: RequestParameterValue {}
extension UInt64: RequestParameterValue {}
extension Double: RequestParameterValue {}
extension Bool: RequestParameterValue {}

extension UUID: RequestParameterValue {
    /// The UUID's `uuidString`.
    public var parameterValues: [String] { [uuidString] }
}

extension Optional: RequestParameterValue where Wrapped: RequestParameterValue {
    /// The wrapped value's texts, or none.
    public var parameterValues: [String] { self?.parameterValues ?? [] }
}

extension Array: RequestParameterValue where Element: RequestParameterValue {
    /// Each element's texts, in order.
    public var parameterValues: [String] { flatMap(\.parameterValues) }
}
