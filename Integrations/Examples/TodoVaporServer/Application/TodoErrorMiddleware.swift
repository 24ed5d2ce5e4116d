import HTTPTypes
import TodoApp
import Vapor

/// Answers every error in PostgREST's form, with its status: the server's own (``TodoServerError``), Vapor's
/// (unknown routes, …), and any other as `500`, logged with its cause.
struct TodoErrorMiddleware: AsyncMiddleware {
    func respond(to request: Request, chainingTo next: any AsyncResponder) async throws -> Response {
        do {
            return try await next.respond(to: request)
        } catch let error as TodoServerError {
            return Response(error.answer)
        } catch let error as any AbortError {
            let message =
                error.status == .notFound ? "no route \(request.method) \(request.url.path)" : error.reason
            return Response(TodoServerError.status(HTTPResponse.Status(code: Int(error.status.code)), message).answer)
        } catch {
            request.logger.error(
                "\(request.method) \(request.url.path) failed",
                metadata: ["cause": "\(DatabaseFailure.describe(error))"])
            return Response(
                TodoServerError.status(.internalServerError, "the server failed this request; see its log").answer)
        }
    }
}
