import Foundation
import HTTPTypes

/// A write as the REST writes read it, whatever the framework that received it: its method, the path's
/// `{id}`, its query, its headers, and a way to read its body.
public struct RESTRequest: Sendable {
    /// What the body reader found: the bytes, or that there were more than the limit allows.
    public enum Body: Sendable {
        /// The whole body.
        case bytes(Data)
        /// A body over the limit the reader was given.
        case tooLarge
    }

    /// `POST`, `PATCH` or `DELETE`.
    public var method: HTTPRequest.Method
    /// The path's `{id}` for a write of one row (`PATCH`/`DELETE path/{id}`), `nil` for the table's path.
    public var id: String?
    /// The query, undecoded, without `?`: PostgREST's parameters.
    public var query: String?
    /// The request's headers.
    public var headers: HTTPFields
    /// Reads the body, up to a number of bytes; called at most once, after the headers are checked.
    public var body: @Sendable (_ limit: Int) async throws -> Body

    /// A request of these parts.
    ///
    /// - Complexity: O(1).
    public init(
        method: HTTPRequest.Method, id: String?, query: String?, headers: HTTPFields,
        body: @escaping @Sendable (_ limit: Int) async throws -> Body
    ) {
        self.method = method
        self.id = id
        self.query = query
        self.headers = headers
        self.body = body
    }
}
