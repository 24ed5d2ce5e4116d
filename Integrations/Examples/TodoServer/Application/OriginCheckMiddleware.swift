import Hummingbird
import TodoApp

/// Refuses requests from where the server does not expect them (`OriginPolicy`), with `403` and a JSON error.
struct OriginCheckMiddleware<Context: RequestContext>: RouterMiddleware {
    let policy: OriginPolicy

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response)
        async throws -> Response
    {
        try policy.check(method: request.method, host: request.head.authority ?? "", origin: request.headers[.origin])
        return try await next(request, context)
    }
}
