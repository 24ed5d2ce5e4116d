import Foundation
import Hummingbird
import Logging
import NIOFoundationCompat

/// What the server answers a request it cannot carry out: a status and `{"error": "…"}`.
public enum TodoServerError: Error, Equatable, HTTPResponseError, CustomStringConvertible {
    /// `400`: malformed JSON, or a missing or wrong-typed field.
    case badRequest(String)
    /// `404`: no to-do has this id, or no route this path.
    case notFound(String)
    /// `503` with `Retry-After`: the database could not be reached within the query timeout.
    case unavailable(String)
    /// Any other status Hummingbird reports (`413` for a body over 64 KiB, `405`, …), with its message.
    case status(HTTPResponse.Status, String)

    public var status: HTTPResponse.Status {
        switch self {
        case .badRequest: .badRequest
        case .notFound: .notFound
        case .unavailable: .serviceUnavailable
        case .status(let status, _): status
        }
    }

    /// The message: what the server prints when it cannot start.
    public var description: String { message }

    /// The error's message, as the body says it.
    public var message: String {
        switch self {
        case .badRequest(let message), .notFound(let message), .unavailable(let message), .status(_, let message):
            message
        }
    }

    /// What a `503` asks clients to wait before they try again, in seconds.
    static var retryAfterSeconds: String { "2" }

    public func response(from request: Request, context: some RequestContext) throws -> Response {
        var headers = HTTPFields()
        headers[.contentType] = "application/json; charset=utf-8"
        if status == .serviceUnavailable { headers[.retryAfter] = Self.retryAfterSeconds }
        let body = try JSONEncoder().encode(["error": message])
        return Response(status: status, headers: headers, body: ResponseBody(byteBuffer: ByteBuffer(data: body)))
    }
}

/// Answers Hummingbird's errors (unknown routes, methods, …) as JSON: `{"error": "…"}` with their status.
struct JSONErrorMiddleware<Context: RequestContext>: RouterMiddleware {
    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response)
        async throws -> Response
    {
        do {
            return try await next(request, context)
        } catch let error as TodoServerError {
            throw error
        } catch let error as HTTPError where error.status == .notFound {
            throw TodoServerError.notFound(error.body ?? "no route \(request.method) \(request.uri.path)")
        } catch let error as HTTPError {
            throw TodoServerError.status(error.status, error.body ?? error.status.reasonPhrase)
        } catch let error as any HTTPResponseError {
            // Errors that make their own responses (LiveResultsHummingbird's 503 with Retry-After) keep them.
            throw error
        } catch {
            context.logger.error(
                "\(request.method) \(request.uri.path) failed",
                metadata: ["cause": "\(DatabaseFailure.describe(error))"])
            throw TodoServerError.status(.internalServerError, "the server failed this request; see its log")
        }
    }
}
