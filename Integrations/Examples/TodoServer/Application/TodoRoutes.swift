import Foundation
import Hummingbird
import HummingbirdWebSocket
import LiveResults
import LiveResultsHummingbird
import LiveResultsServing
import NIOCore
import NIOFoundationCompat
import TodoApp

/// The server's routes: the page, the live results of `/todos`, the REST writes and `/health`.
public enum TodoRoutes {
    /// A router serving `store`: `GET` and `HEAD` of `/` and `/health`, and for each of `/todos` and `/people`
    /// the live queries (`GET`, `/events`, `/updates`) and the writes in PostgREST's form (`POST`, `PATCH` and
    /// `DELETE` with filters, `PATCH` and `DELETE` of `/{id}`).
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
    /// write cannot be forged with a plain form or a `no-cors` fetch. `HEAD` is answered as Vapor answers it: as
    /// `GET` of `/` and `/health`, `404` elsewhere, never with a body. `GET /metrics` answers `metrics` in
    /// Prometheus' text format.
    ///
    /// - Parameters:
    ///   - store: Where the to-dos are.
    ///   - options: The streams' limits. The routes report to `metrics`, whatever its `metricsFactory`.
    ///   - metrics: Where the routes' metrics go, and what `GET /metrics` answers; a registry of its own by default.
    ///   - maximumLimit: The largest window of `/todos`; `TodoConfiguration.defaultMaximumLimit` by default.
    ///   - allowedHosts: The `Host` names requests may name (with or without the port); empty, the default:
    ///     any. Others get `403`.
    ///   - allowedOrigins: The origins besides the server's own that may write (`http://host:port`); none
    ///     by default. A write with another `Origin` gets `403`.
    /// - Returns: The router, and the stream counts of `/todos` and of `/people`: services to run after the
    ///   application, so that a graceful shutdown ends their streams.
    public static func router(
        _ store: some TodoStore, options: LiveResultsOptions = LiveResultsOptions(),
        metrics: TodoMetrics = TodoMetrics(), maximumLimit: Int = TodoConfiguration.defaultMaximumLimit,
        allowedHosts: Set<String> = [], allowedOrigins: Set<String> = []
    ) throws -> (
        router: Router<LiveResultsRequestContext>, endpoint: LiveResultsEndpoint, peopleEndpoint: LiveResultsEndpoint
    ) {
        // `HEAD` of the page and of `/health` answers as `GET` does, without the body, as Vapor answers `HEAD` of a
        // `GET` route: load balancers and orchestrators probe health with `HEAD`. The live routes answer their `HEAD`
        // themselves (`404`, on both frameworks), and a path without a `GET` has no `HEAD` either (`404`).
        let router = Router(context: LiveResultsRequestContext.self, options: .autoGenerateHeadEndpoints)
        // Hummingbird's request metrics, through swift-metrics' global backend (the executable bootstraps `metrics`).
        router.middlewares.add(MetricsMiddleware())
        router.middlewares.add(RequestLogMiddleware())
        router.middlewares.add(JSONErrorMiddleware())
        router.middlewares.add(
            OriginCheckMiddleware(policy: OriginPolicy(allowedHosts: allowedHosts, allowedOrigins: allowedOrigins)))
        router.get { _, _ in TodoPage.response() }
        router.get("health") { _, _ in Response(try await TodoTables.health(store)) }
        router.get("metrics") { _, _ in Response(metrics.response()) }
        var options = options
        options.metricsFactory = metrics.factory
        options.sourceStatus = options.sourceStatus ?? store.sourceStatus
        let relations = TodoTables.relations(store)
        let endpoint = router.addLiveQueries(
            store.todos, at: "todos", filters: TodoTables.todoFilters, orders: TodoTables.todoOrders,
            defaultOrder: TodoTables.todoDefaultOrder, sections: TodoTables.todoSections,
            maximumLimit: maximumLimit, relations: relations, options: options)
        let peopleEndpoint = router.addLiveQueries(
            store.people, at: "people", filters: TodoTables.personFilters, orders: TodoTables.personOrders,
            maximumLimit: maximumLimit, relations: relations, options: options)
        RESTWrites<_, TodoInput>(store: store, filters: Set(TodoTables.todoFilters)).add(to: router, at: "todos")
        RESTWrites<_, PersonInput>(store: store, filters: Set(TodoTables.personFilters)).add(to: router, at: "people")
        return (router, endpoint, peopleEndpoint)
    }
}
