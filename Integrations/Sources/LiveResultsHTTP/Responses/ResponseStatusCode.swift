/// The answer's status code.
///
/// ```swift
/// @ResponseStatusCode var statusCode
/// ```
@propertyWrapper
public struct ResponseStatusCode: Sendable {
    /// The status code.
    public var wrappedValue: Int

    /// A status, for responses made in code.
    public init(wrappedValue: Int) {
        self.wrappedValue = wrappedValue
    }

    /// No status yet (0): what lets a response declare `@ResponseStatusCode var status` without a type.
    public init() {
        wrappedValue = 0
    }
}

extension ResponseStatusCode: Decodable, _ResponseField {
    /// Read only by ``HTTPAPIClient``.
    public init(from decoder: any Decoder) throws {
        throw _ResponseDecoder.notAResponse(decoder)
    }

    init(response: _ResponseContext, property: String) throws {
        wrappedValue = response.response.status
    }
}
