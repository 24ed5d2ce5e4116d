import Foundation

/// A typed HTTP request: a small value whose property wrappers say where each of its values goes, and
/// whose ``Response`` says how to read the answer (Postie's `Request`).
///
/// ```swift
/// struct ContactRequest: APIRequest {
///     typealias Response = ContactResponse
///     @RequestHTTPMethod var method = .get
///     @RequestPath var path = "/app/{id}/contacts/{cid}"
///     @RequestPathParameter(name: "id") var id = 123
///     @RequestPathParameter(name: "cid") var contactID = "ABC456"
///     @QueryItem var values = [1, 2, 3]
///     @RequestHeader(name: "Authorization") var authorization: String? = nil
/// }
/// let response = try await client.send(ContactRequest())   // GET /app/123/contacts/ABC456?values=1&values=2&values=3
/// ```
///
/// The wrappers are read by reflection when the request is sent, in the order the properties are
/// declared: ``RequestHTTPMethod`` (`GET` without one), ``RequestPath`` (`/` without one),
/// ``RequestPathParameter``, ``QueryItem`` and ``RequestHeader``. A body comes from adopting one of
/// ``JSONRequest``, ``FormURLEncodedRequest``, ``PlainRequest`` or ``XMLRequest``; a request without one
/// sends no body.
public protocol APIRequest: Sendable {
    /// How the answer is read: a `Decodable` type whose properties are response wrappers
    /// (``ResponseBody``, ``ResponseErrorBody``, ``ResponseHeader``, ``ResponseStatusCode``,
    /// ``NestedResponse``), or ``EmptyResponse``.
    associatedtype Response: Decodable & Sendable

    /// The request's body and its content type; `nil` sends none.
    ///
    /// The body protocols (``JSONRequest`` and the others) implement it; implement it yourself for
    /// another format.
    ///
    /// - Parameter coding: The client's encoders.
    /// - Returns: The body, or `nil`.
    func encodedBody(using coding: HTTPCoding) throws -> EncodedBody?
}

extension APIRequest {
    /// No body.
    public func encodedBody(using coding: HTTPCoding) throws -> EncodedBody? { nil }
}
