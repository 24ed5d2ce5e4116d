/// A header of an ``APIRequest``, omitted when its value is `nil`; an array sends one line per value.
///
/// ```swift
/// @RequestHeader(name: "Authorization") var authorization: String? = "Bearer abc"
/// ```
@propertyWrapper
public struct RequestHeader<Value: RequestParameterValue>: Sendable {
    /// The value.
    public var wrappedValue: Value
    /// The header's name; the property's name when `nil`.
    public var name: String?

    /// A header named `name` (the property's name by default).
    ///
    /// - Parameters:
    ///   - wrappedValue: The value.
    ///   - name: The header's name.
    public init(wrappedValue: Value, name: String? = nil) {
        self.wrappedValue = wrappedValue
        self.name = name
    }
}

extension RequestHeader: _RequestPart {
    func contribute(to parts: inout _RequestParts, property: String) throws {
        let name = self.name ?? property
        for value in wrappedValue.parameterValues {
            parts.headers.append(HTTPHeader(name: name, value: value))
        }
    }
}
