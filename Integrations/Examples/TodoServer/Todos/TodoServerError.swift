import Foundation
import HTTPTypes
import Hummingbird
import LiveResultsServing
import Logging
import NIOFoundationCompat

/// What the server answers a request it cannot carry out: a status and PostgREST's error body,
/// `{"code", "message", "details", "hint"}`.
public enum TodoServerError: Error, Equatable, HTTPResponseError, CustomStringConvertible {
    /// `400 PGRST102`: a body that is not JSON, or not what the table takes.
    case badRequest(String)
    /// `404 PGRST116`: no row has this id (the result has 0 rows).
    case notFound(String)
    /// `503 PGRST001` with `Retry-After`: the database could not be reached within the query timeout.
    case unavailable(String)
    /// Any other status Hummingbird reports (`413` for a body over 64 KiB, `405`, …), with its message.
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

    /// PostgREST's code for a status Hummingbird or the server's checks give.
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
    static var retryAfterSeconds: String { "2" }

    public func response(from request: Request, context: some RequestContext) throws -> Response {
        let error = self.error
        var headers = HTTPFields()
        for (name, value) in error.responseHeaders() {
            if let name = HTTPField.Name(name) { headers[name] = value }
        }
        return Response(
            status: status, headers: headers, body: ResponseBody(byteBuffer: ByteBuffer(data: error.body())))
    }
}

/// Answers Hummingbird's errors (unknown routes, methods, …) in PostgREST's form, with their status.
struct JSONErrorMiddleware<Context: RequestContext>: RouterMiddleware {
    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response)
        async throws -> Response
    {
        do {
            return try await next(request, context)
        } catch let error as TodoServerError {
            throw error
        } catch let error as HTTPError where error.status == .notFound {
            throw TodoServerError.status(.notFound, error.body ?? "no route \(request.method) \(request.uri.path)")
        } catch let error as HTTPError {
            throw TodoServerError.status(error.status, error.body ?? error.status.reasonPhrase)
        } catch let error as any HTTPResponseError {
            // Errors that make their own responses (LiveResultsHummingbird's, in PostgREST's form) keep them.
            throw error
        } catch {
            context.logger.error(
                "\(request.method) \(request.uri.path) failed",
                metadata: ["cause": "\(DatabaseFailure.describe(error))"])
            throw TodoServerError.status(.internalServerError, "the server failed this request; see its log")
        }
    }
}
