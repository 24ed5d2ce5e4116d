import Hummingbird
import Logging
import TodoApp

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
