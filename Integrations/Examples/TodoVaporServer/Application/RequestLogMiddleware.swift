import HTTPTypes
import TodoApp
import Vapor

/// Logs one line per request (`RequestLog`), with the status the client gets: the outermost middleware.
struct RequestLogMiddleware: AsyncMiddleware {
    func respond(to request: Request, chainingTo next: any AsyncResponder) async throws -> Response {
        let started = ContinuousClock.now
        let response = try await next.respond(to: request)
        RequestLog.log(
            request.logger, method: request.method.rawValue, path: request.url.path,
            status: HTTPResponse.Status(code: Int(response.status.code)), since: started)
        return response
    }
}
