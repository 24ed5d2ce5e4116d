/// The body of an answer whose status is not 2xx or 3xx, read as `ErrorBody`; `nil` for a success.
///
/// A response that has one is returned by ``HTTPAPIClient/send(_:requiringSuccess:)`` for every status,
/// its ``ResponseBody`` then `nil` (Postie's behaviour); an error body that does not decode throws.
///
/// ```swift
/// struct APIError: JSONDecodable { var error: String }
/// @ResponseErrorBody<APIError> var error      // {"error": "no to-do 7"} with a 404
/// ```
@propertyWrapper
public struct ResponseErrorBody<ErrorBody: ResponseBodyDecodable> {
    /// The error body; `nil` when the status is 2xx or 3xx.
    public var wrappedValue: ErrorBody?

    /// An error body, for responses made in code.
    public init(wrappedValue: ErrorBody?) {
        self.wrappedValue = wrappedValue
    }

    /// No error body yet: what lets a response declare `@ResponseErrorBody<APIError> var error` without a type.
    public init() {
        wrappedValue = nil
    }
}

extension ResponseErrorBody: Decodable, _ResponseField {
    /// Read only by ``HTTPAPIClient``.
    public init(from decoder: any Decoder) throws {
        throw _ResponseDecoder.notAResponse(decoder)
    }

    init(response: _ResponseContext, property: String) throws {
        response.readsErrorBody = true
        wrappedValue = response.isSuccess ? nil : try response.body(ErrorBody.self)
    }
}

extension ResponseErrorBody: Sendable where ErrorBody: Sendable {}
