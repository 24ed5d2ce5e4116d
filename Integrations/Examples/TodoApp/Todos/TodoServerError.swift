import Foundation
import HTTPTypes
import LiveResultsServing

/// What the server answers a request it cannot carry out: a status and PostgREST's error body,
/// `{"code", "message", "details", "hint"}`.
public enum TodoServerError: Error, Equatable, CustomStringConvertible {
    /// `400 PGRST102`: a body that is not JSON, or not what the table takes.
    case badRequest(String)
    /// `404 PGRST116`: no row has this id (the result has 0 rows).
    case notFound(String)
    /// `503 PGRST001` with `Retry-After`: the database could not be reached within the query timeout.
    case unavailable(String)
    /// Any other status the framework reports (`413` for a body over 64 KiB, `405`, …), with its message.
    case status(HTTPResponse.Status, String)
    /// An error PostgREST defines, as it is.
    case postgREST(PostgRESTError)

    public var status: HTTPResponse.Status {
        switch self {
        case .badRequest: .badRequest
        case .notFound: .notFound
        case .unavailable: .serviceUnavailable
        case .status(let status, _): status
        case .postgREST(let error): HTTPResponse.Status(code: error.status)
        }
    }

    /// The message: what the server prints when it cannot start.
    public var description: String { message }

    /// The error's message, as the body says it.
    public var message: String { error.message }

    /// The error as PostgREST writes it.
    public var error: PostgRESTError {
        switch self {
        case .badRequest(let message): .invalidBody(message)
        case .notFound(let message):
            PostgRESTError(status: 404, code: "PGRST116", message: message, details: "The result contains 0 rows")
        case .unavailable(let message):
            PostgRESTError(
                status: 503, code: "PGRST001", message: message, headers: ["Retry-After": Self.retryAfterSeconds])
        case .status(let status, let message):
            PostgRESTError(status: status.code, code: Self.code(of: status), message: message)
        case .postgREST(let error): error
        }
    }

    /// PostgREST's code for a status the framework or the server's checks give.
    private static func code(of status: HTTPResponse.Status) -> String {
        switch status.code {
        case 403: "42501"  // insufficient privilege
        case 404: "PGRST125"  // no route: an invalid path
        case 405: "PGRST117"  // unsupported HTTP method
        case 413, 415: "PGRST102"  // an invalid body
        case 500: "PGRSTX00"
        default: "PGRST\(status.code)"
        }
    }

    /// What a `503` asks clients to wait before they try again, in seconds.
    public static var retryAfterSeconds: String { "2" }

    /// The error as an answer: its status, PostgREST's body and its headers (`Retry-After` for a `503`).
    ///
    /// - Complexity: O(*m*) for a message of *m* characters.
    public var answer: RESTResponse {
        let error = self.error
        var headers = HTTPFields()
        for (name, value) in error.responseHeaders() {
            if let name = HTTPField.Name(name) { headers[name] = value }
        }
        return RESTResponse(status: status, headers: headers, body: error.body())
    }
}
