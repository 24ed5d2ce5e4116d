/// A query item of an ``APIRequest``: `?name=value`, omitted when the value is `nil`, repeated for an
/// array.
///
/// ```swift
/// @QueryItem var values = [1, 2, 3]                   // ?values=1&values=2&values=3
/// @QueryItem(name: "q") var search: String? = nil      // omitted
/// ```
///
/// Names and values are percent-encoded (`&`, `=`, `+`, spaces and non-ASCII characters included).
@propertyWrapper
public struct QueryItem<Value: RequestParameterValue>: Sendable {
    /// The value.
    public var wrappedValue: Value
    /// The item's name; the property's name when `nil`.
    public var name: String?

    /// A query item named `name` (the property's name by default).
    ///
    /// - Parameters:
    ///   - wrappedValue: The value.
    ///   - name: The item's name.
    public init(wrappedValue: Value, name: String? = nil) {
        self.wrappedValue = wrappedValue
        self.name = name
    }
}

extension QueryItem: _RequestPart {
    func contribute(to parts: inout _RequestParts, property: String) throws {
        let name = self.name ?? property
        for value in wrappedValue.parameterValues {
            parts.queryItems.append((name, value))
        }
    }
}
