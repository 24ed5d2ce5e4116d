import Foundation
import Hummingbird
import HummingbirdWebSocket
import LiveResults
import LiveResultsHummingbird
import NIOCore

/// The server's routes: the page, the live results of `/todos`, and the REST writes.
public enum TodoRoutes {
    /// The largest body a write may send: 64 KiB (a larger one gets `413`).
    public static let maximumBodySize = 64 * 1_024

    /// A router serving `store`: `GET /`, `GET /todos` (+ `/events`, `/updates`), `POST /todos`,
    /// `PATCH /todos/{id}`, `DELETE /todos/{id}`.
    public static func router(
        _ store: some TodoStore, options: LiveResultsOptions = LiveResultsOptions()
    ) throws -> (router: Router<BasicWebSocketRequestContext>, endpoint: LiveResultsEndpoint) {
        let router = Router(context: BasicWebSocketRequestContext.self)
        router.middlewares.add(JSONErrorMiddleware())
        let page = try TodoPage.html()
        router.get { _, _ in
            var headers = HTTPFields()
            headers[.contentType] = "text/html; charset=utf-8"
            headers[.cacheControl] = "no-cache"
            return Response(status: .ok, headers: headers, body: ResponseBody(byteBuffer: page))
        }
        let endpoint = router.addLiveResults(store.controller, at: "todos", options: options)
        router.post("todos") { request, _ in
            let todo = try await store.create(TodoInput(json: try await body(of: request), requiringAll: true))
            return try json(todo, status: .created)
        }
        router.patch("todos/:id") { request, context in
            let id = try self.id(context)
            let input = try TodoInput(json: try await body(of: request), requiringAll: false)
            guard let todo = try await store.update(id: id, with: input) else { throw notFound(id) }
            return try json(todo, status: .ok)
        }
        router.delete("todos/:id") { _, context in
            let id = try self.id(context)
            guard try await store.delete(id: id) else { throw notFound(id) }
            return Response(status: .noContent)
        }
        return (router, endpoint)
    }

    private static func body(of request: Request) async throws -> Data {
        var request = request
        do {
            return Data(buffer: try await request.collectBody(upTo: maximumBodySize))
        } catch is NIOTooManyBytesError {
            throw TodoServerError.status(.contentTooLarge, "the body is over \(maximumBodySize / 1_024) KiB")
        }
    }

    private static func id(_ context: some RequestContext) throws -> Int64 {
        // An id that is not a number names no to-do.
        guard let text = context.parameters.get("id"), let id = Int64(text) else {
            throw TodoServerError.notFound("no to-do \(context.parameters.get("id") ?? "")")
        }
        return id
    }

    private static func notFound(_ id: Int64) -> TodoServerError {
        .notFound("no to-do \(id)")
    }

    private static func json(_ todo: Todo, status: HTTPResponse.Status) throws -> Response {
        var headers = HTTPFields()
        headers[.contentType] = "application/json; charset=utf-8"
        return Response(
            status: status, headers: headers,
            body: ResponseBody(byteBuffer: ByteBuffer(data: try JSONEncoder().encode(todo))))
    }
}
