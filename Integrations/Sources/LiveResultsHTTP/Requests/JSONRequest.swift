import Foundation

/// A request whose body is JSON (`Content-Type: application/json`), encoded with the client's
/// ``HTTPCoding/makeJSONEncoder``.
///
/// ```swift
/// struct CreateTodo: JSONRequest {
///     typealias Response = TodoResponse
///     @RequestHTTPMethod var method = .post
///     @RequestPath var path = "/todos"
///     var body: NewTodo
/// }
/// ```
public protocol JSONRequest: APIRequest {
    /// The body's type.
    associatedtype Body: Encodable & Sendable
    /// The body sent.
    var body: Body { get }
}

extension JSONRequest {
    /// The body as JSON.
    public func encodedBody(using coding: HTTPCoding) throws -> EncodedBody? {
        EncodedBody(try _encode { try coding.makeJSONEncoder().encode(body) }, contentType: "application/json")
    }
}
