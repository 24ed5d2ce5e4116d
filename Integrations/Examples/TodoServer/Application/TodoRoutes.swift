import Foundation
import Hummingbird
import HummingbirdWebSocket
import LiveResults
import LiveResultsHummingbird
import LiveResultsServing
import NIOCore
import NIOFoundationCompat

/// The server's routes: the page, the live results of `/todos`, the REST writes and `/health`.
public enum TodoRoutes {
    /// The largest body a write may send: 64 KiB (a larger one gets `413`).
    public static let maximumBodySize = 64 * 1_024

    /// The largest window of `/todos` a client may ask for, and the window of a request that names no `limit`,
    /// unless the router is given another.
    public static let defaultMaximumLimit = 500

    /// A router serving `store`: `GET /`, `GET /health`, and for each of `/todos` and `/people` the live
    /// queries (`GET`, `/events`, `/updates`) and the writes in PostgREST's form (`POST`, `PATCH` and `DELETE`
    /// with filters, `PATCH` and `DELETE` of `/{id}`).
    ///
    /// `/todos` serves live queries: each client asks for its filter on `id`, `project`, `priority`, `title`
    /// and `assignee_id`, its order by `priority`, `title` and `id` (by priority, then id, when it names none),
    /// its window (at most `maximumLimit`), its columns and its sections (`sections=project`), in PostgREST's
    /// syntax (`?select=id,title&project=eq.Home&order=priority.desc&limit=50`); `GET` answers as PostgREST
    /// does. `/people` likewise, filtered on `id` and `name`, ordered by `name` and `id`. Every error is
    /// PostgREST's body, `{"code","message","details","hint"}`.
    ///
    /// Every request is logged at `info` with its status and duration; a failure the server did not expect
    /// is logged at `error` with its cause and answered `500` with PostgREST's error body. Writes must be JSON
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
    /// - Returns: The router, and the stream counts of `/todos` and of `/people`: services to run after the
    ///   application, so that a graceful shutdown ends their streams.
    public static func router(
        _ store: some TodoStore, options: LiveResultsOptions = LiveResultsOptions(),
        maximumLimit: Int = defaultMaximumLimit, allowedHosts: Set<String> = [], allowedOrigins: Set<String> = []
    ) throws -> (
        router: Router<LiveResultsRequestContext>, endpoint: LiveResultsEndpoint, peopleEndpoint: LiveResultsEndpoint
    ) {
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
        // Each to-do embeds its assignee (`assignee:people(name)`), each person their to-dos (`todos(title)`).
        var relations = LiveRelations()
        relations.addTable("todos", source: store.todos)
        relations.addTable("people", source: store.people)
        relations.addForeignKey(from: "todos", column: "assignee_id", to: "people")
        let endpoint = router.addLiveQueries(
            store.todos, at: "todos", filters: todoFilters, orders: ["priority", "title", "id"],
            defaultOrder: [LiveQueryOrdering(column: "priority")], sections: ["project"],
            maximumLimit: maximumLimit, relations: relations, options: options)
        let peopleEndpoint = router.addLiveQueries(
            store.people, at: "people", filters: personFilters, orders: ["name", "id"], maximumLimit: maximumLimit,
            relations: relations, options: options)
        RESTWrites<_, TodoInput>(store: store, filters: Set(todoFilters)).add(to: router, at: "todos")
        RESTWrites<_, PersonInput>(store: store, filters: Set(personFilters)).add(to: router, at: "people")
        return (router, endpoint, peopleEndpoint)
    }

    /// The columns of `/todos` a query may filter on.
    static let todoFilters = ["id", "project", "priority", "title", "assignee_id"]
    /// The columns of `/people` a query may filter on.
    static let personFilters = ["id", "name"]

    private static func json(_ value: some Encodable, status: HTTPResponse.Status) throws -> Response {
        var headers = HTTPFields()
        headers[.contentType] = "application/json; charset=utf-8"
        return Response(
            status: status, headers: headers,
            body: ResponseBody(byteBuffer: ByteBuffer(data: try JSONEncoder().encode(value))))
    }
}
