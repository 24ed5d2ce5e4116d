import Hummingbird
import Logging

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
        let duration = started.duration(to: .now)
        let milliseconds = Double(duration.components.seconds) * 1_000 + Double(duration.components.attoseconds) / 1e15
        context.logger.info(
            "\(request.method) \(request.uri.path) \(status.code)",
            metadata: ["status": "\(status.code)", "duration_ms": "\(Int(milliseconds.rounded()))"])
    }
}
