/// A value that fills the `{name}` placeholder of the request's ``RequestPath``.
///
/// ```swift
/// @RequestPath var path = "/app/{id}/contacts/{cid}"
/// @RequestPathParameter(name: "id") var id = 123
/// @RequestPathParameter(name: "cid") var contactID = "ABC456"     // → /app/123/contacts/ABC456
/// ```
///
/// The value is percent-encoded as one path segment: everything but letters, digits, `-`, `_` and `~` is
/// encoded, `/` and `.` included, so that no value (`../admin`, `a/b`) ever reaches another path. A value
/// with no text (`nil`, an empty array) leaves the placeholder unfilled.
@propertyWrapper
public struct RequestPathParameter<Value: RequestParameterValue>: Sendable {
    /// The value.
    public var wrappedValue: Value
    /// The placeholder's name; the property's name when `nil`.
    public var name: String?

    /// A parameter for the placeholder `name` (the property's name by default).
    ///
    /// - Parameters:
    ///   - wrappedValue: The value.
    ///   - name: The placeholder's name, without braces.
    public init(wrappedValue: Value, name: String? = nil) {
        self.wrappedValue = wrappedValue
        self.name = name
    }
}

extension RequestPathParameter: _RequestPart {
    func contribute(to parts: inout _RequestParts, property: String) throws {
        let name = self.name ?? property
        guard let value = wrappedValue.parameterValues.first else { return }
        parts.pathParameters[name] = value
    }
}
