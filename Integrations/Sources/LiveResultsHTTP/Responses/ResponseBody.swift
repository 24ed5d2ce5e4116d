/// The body of a successful answer (2xx or 3xx), read as `Body`; `nil` for another status.
///
/// ```swift
/// struct TodoResponse: Decodable {
///     @ResponseBody<Todo> var body           // Todo: JSONDecodable
///     @ResponseErrorBody<APIError> var error
/// }
/// ```
///
/// A body that is empty, truncated, of another content type or that does not decode throws an
/// ``HTTPAPIError`` that says so (with the coding path).
@propertyWrapper
public struct ResponseBody<Body: ResponseBodyDecodable> {
    /// The body; `nil` when the status is not 2xx or 3xx.
    public var wrappedValue: Body?

    /// A body, for responses made in code (tests, previews).
    public init(wrappedValue: Body?) {
        self.wrappedValue = wrappedValue
    }

    /// No body yet: what lets a response declare `@ResponseBody<Todo> var todo` without a type.
    public init() {
        wrappedValue = nil
    }
}

extension ResponseBody: Decodable, _ResponseField {
    /// Read only by ``HTTPAPIClient``.
    public init(from decoder: any Decoder) throws {
        throw _ResponseDecoder.notAResponse(decoder)
    }

    init(response: _ResponseContext, property: String) throws {
        wrappedValue = response.isSuccess ? try response.body(Body.self) : nil
    }
}

extension ResponseBody: Sendable where Body: Sendable {}
