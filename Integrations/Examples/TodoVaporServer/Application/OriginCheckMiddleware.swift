import HTTPTypes
import TodoApp
import Vapor

/// Refuses requests from where the server does not expect them (`OriginPolicy`), with `403` and a JSON error.
struct OriginCheckMiddleware: AsyncMiddleware {
    let policy: OriginPolicy

    func respond(to request: Request, chainingTo next: any AsyncResponder) async throws -> Response {
        try policy.check(
            method: HTTPRequest.Method(request.method.rawValue) ?? .get,
            host: request.headers.first(name: .host) ?? "", origin: request.headers.first(name: .origin))
        return try await next.respond(to: request)
    }
}
