import Foundation
import Hummingbird
import HummingbirdWebSocket
import LiveResults
import LiveResultsHummingbird
import NIOCore
import NIOFoundationCompat

/// The server's routes: the page, the live results of `/todos`, the REST writes and `/health`.
public enum TodoRoutes {
    /// The largest body a write may send: 64 KiB (a larger one gets `413`).
    public static let maximumBodySize = 64 * 1_024

    /// The largest window of `/todos` a client may ask for, and the window of a request that names no `limit`,
    /// unless the router is given another.
    public static let defaultMaximumLimit = 500

    /// A router serving `store`: `GET /`, `GET /todos` (+ `/events`, `/updates`), `POST /todos`,
    /// `PATCH /todos/{id}`, `DELETE /todos/{id}`, `GET /health`.
    ///
    /// `/todos` serves live queries: each client asks for its filter on `project`, `priority` and `title`, its
    /// order by `priority`, `title` and `id` (by priority, then id, when it names none) and its window (at most
    /// `maximumLimit`), in PostgREST's syntax (`?project=eq.Home&order=priority.desc&limit=50`); the results
    /// are sectioned by project.
    ///
    /// Every request is logged at `info` with its status and duration; a failure the server did not expect
    /// is logged at `error` with its cause and answered `500` with a JSON error. Writes must be JSON
    /// (`415` otherwise): a page on another origin cannot send JSON without the browser asking first, so a
    /// write cannot be forged with a plain form or a `no-cors` fetch.
    ///
    /// - Parameters:
    ///   - store: Where the to-dos are.
    ///   - options: The streams' limits.
    ///   - maximumLimit: The largest window of `/todos`; ``defaultMaximumLimit`` by default.
    ///   - allowedHosts: The `Host` names requests may name (with or without the port); empty, the default:
    ///     any. Others get `403`.
    ///   - allowedOrigins: The origins besides the server's own that may write (`http://host:port`); none
    ///     by default. A write with another `Origin` gets `403`.
    public static func router(
        _ store: some TodoStore, options: LiveResultsOptions = LiveResultsOptions(),
        maximumLimit: Int = defaultMaximumLimit, allowedHosts: Set<String> = [], allowedOrigins: Set<String> = []
    ) throws -> (router: Router<LiveResultsRequestContext>, endpoint: LiveResultsEndpoint) {
        let router = Router(context: LiveResultsRequestContext.self)
        router.middlewares.add(RequestLogMiddleware())
        router.middlewares.add(JSONErrorMiddleware())
        router.middlewares.add(OriginCheckMiddleware(allowedHosts: allowedHosts, allowedOrigins: allowedOrigins))
        router.get { _, _ in TodoPage.response() }
        router.get("health") { _, _ in
            try await store.checkHealth()
            return try json(["status": "ok"], status: .ok)
        }
        var options = options
        options.sourceStatus = options.sourceStatus ?? store.sourceStatus
        let endpoint = router.addLiveQueries(
            store.todos, at: "todos", filters: ["project", "priority", "title"], orders: ["priority", "title", "id"],
            defaultOrder: [LiveQueryOrdering(column: "priority")], sectionedBy: "project",
            maximumLimit: maximumLimit, options: options)
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

    /// The body of a write: JSON, at most ``maximumBodySize``.
    private static func body(of request: Request) async throws -> Data {
        let mediaType = request.headers[.contentType]?.split(separator: ";").first
            .map { $0.trimmingCharacters(in: .whitespaces).lowercased() }
        guard mediaType == "application/json" else {
            throw TodoServerError.status(.unsupportedMediaType, "a write wants Content-Type: application/json")
        }
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

    private static func json(_ value: some Encodable, status: HTTPResponse.Status) throws -> Response {
        var headers = HTTPFields()
        headers[.contentType] = "application/json; charset=utf-8"
        return Response(
            status: status, headers: headers,
            body: ResponseBody(byteBuffer: ByteBuffer(data: try JSONEncoder().encode(value))))
    }
}
