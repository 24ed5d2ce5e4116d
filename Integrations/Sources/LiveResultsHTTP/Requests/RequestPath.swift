/// The path of an ``APIRequest``, relative to the client's base URL, with `{name}` placeholders that
/// ``RequestPathParameter``s fill.
///
/// ```swift
/// @RequestPath var path = "/app/{id}/contacts/{cid}"
/// ```
///
/// The path is joined to the base URL's path with one `/` between them, whether the base URL ends with a
/// slash or not and whether the path starts with one or not. A placeholder left unfilled throws
/// ``HTTPAPIError/unfilledPathParameter(name:path:)`` when the request is sent.
@propertyWrapper
public struct RequestPath: Sendable {
    /// The path template.
    public var wrappedValue: String

    /// The path template.
    public init(wrappedValue: String) {
        self.wrappedValue = wrappedValue
    }
}

extension RequestPath: _RequestPart {
    func contribute(to parts: inout _RequestParts, property: String) throws {
        parts.path = wrappedValue
    }
}
