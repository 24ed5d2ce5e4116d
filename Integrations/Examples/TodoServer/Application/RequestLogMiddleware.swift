import Hummingbird
import TodoApp

/// Logs one line per request at `info`: its method, path, status and duration (for a stream, until its
/// head is sent). The outermost middleware, so that the status is the one the client gets.
struct RequestLogMiddleware<Context: RequestContext>: RouterMiddleware {
    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response)
        async throws -> Response
    {
        let started = ContinuousClock.now
        do {
            let response = try await next(request, context)
            log(request, status: response.status, since: started, context: context)
            return response
        } catch let error as any HTTPResponseError {
            log(request, status: error.status, since: started, context: context)
            throw error
        }
    }

    private func log(
        _ request: Request, status: HTTPResponse.Status, since started: ContinuousClock.Instant, context: Context
    ) {
        RequestLog.log(
            context.logger, method: "\(request.method)", path: request.uri.path, status: status, since: started)
    }
}
