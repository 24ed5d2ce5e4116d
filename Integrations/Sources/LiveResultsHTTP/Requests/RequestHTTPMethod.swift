/// The method of an ``APIRequest`` (`GET` when a request has none).
///
/// ```swift
/// @RequestHTTPMethod var method = .post
/// ```
@propertyWrapper
public struct RequestHTTPMethod: Sendable {
    /// The method sent.
    public var wrappedValue: RequestMethod

    /// The method sent.
    public init(wrappedValue: RequestMethod) {
        self.wrappedValue = wrappedValue
    }
}

extension RequestHTTPMethod: _RequestPart {
    func contribute(to parts: inout _RequestParts, property: String) throws {
        parts.method = wrappedValue
    }
}
