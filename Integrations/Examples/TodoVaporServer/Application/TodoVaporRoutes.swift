import Foundation
import HTTPTypes
import LiveResultsVapor
import TodoApp
import Vapor

/// The Vapor server's routes: the page, `/health`, and for each of `/todos` and `/people` the live queries
/// (`GET`, `/events`, `/updates`, `LiveResultsVapor`'s) and the REST writes, behind the request log, the errors
/// in PostgREST's form and the origin checks: the routes, queries and answers of the Hummingbird server.
public enum TodoVaporRoutes {
    /// Registers the routes of `store` on `app`, and its middleware (in place of Vapor's defaults); the live
    /// queries' endpoints join `app`'s lifecycle, so that the application's shutdown ends their streams before
    /// its server stops. The live routes report to `metrics`, which `GET /metrics` answers.
    ///
    /// - Complexity: O(1).
    public static func register(
        _ store: some TodoStore, on app: Application, configuration: TodoConfiguration, metrics: TodoMetrics
    ) {
        app.middleware = Middlewares()
        app.middleware.use(RequestLogMiddleware())
        app.middleware.use(TodoErrorMiddleware())
        app.middleware.use(OriginCheckMiddleware(policy: OriginPolicy(configuration)))
        app.get { _ in Response(RESTResponse(status: .ok, headers: TodoPage.headers, body: Data(TodoPage.html.utf8))) }
        app.get("health") { _ in Response(try await TodoTables.health(store)) }
        app.get("metrics") { _ in Response(metrics.response()) }
        var options = TodoTables.options(configuration, store: store, metrics: metrics)
        // Vapor's idle timeout closes a connection that neither reads nor writes for that long, a quiet stream's
        // too: the streams' heartbeats (a comment line, a WebSocket ping) come sooner.
        options.heartbeatInterval = min(options.heartbeatInterval, configuration.idleTimeout / 2)
        let relations = TodoTables.relations(store)
        app.lifecycle.use(
            app.liveQueries(
                store.todos, at: "todos", filters: TodoTables.todoFilters, orders: TodoTables.todoOrders,
                defaultOrder: TodoTables.todoDefaultOrder, sections: TodoTables.todoSections,
                maximumLimit: configuration.maximumLimit, relations: relations, options: options))
        app.lifecycle.use(
            app.liveQueries(
                store.people, at: "people", filters: TodoTables.personFilters, orders: TodoTables.personOrders,
                maximumLimit: configuration.maximumLimit, relations: relations, options: options))
        RESTWrites<_, TodoInput>(store: store, filters: Set(TodoTables.todoFilters)).register(on: app, at: "todos")
        RESTWrites<_, PersonInput>(store: store, filters: Set(TodoTables.personFilters))
            .register(on: app, at: "people")
    }
}
