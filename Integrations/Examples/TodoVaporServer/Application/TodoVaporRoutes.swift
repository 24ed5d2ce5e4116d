import Foundation
import HTTPTypes
import TodoApp
import Vapor

/// The Vapor server's routes: the page, `/health`, and the REST writes of `/todos` and `/people`, behind the
/// request log, the errors in PostgREST's form and the origin checks.
public enum TodoVaporRoutes {
    /// Registers the routes of `store` on `app`, and its middleware (in place of Vapor's defaults).
    ///
    /// - Complexity: O(1).
    public static func register(_ store: some TodoStore, on app: Application, configuration: TodoConfiguration) {
        app.middleware = Middlewares()
        app.middleware.use(RequestLogMiddleware())
        app.middleware.use(TodoErrorMiddleware())
        app.middleware.use(OriginCheckMiddleware(policy: OriginPolicy(configuration)))
        app.get { _ in Response(RESTResponse(status: .ok, headers: TodoPage.headers, body: Data(TodoPage.html.utf8))) }
        app.get("health") { _ in Response(try await TodoTables.health(store)) }
        RESTWrites<_, TodoInput>(store: store, filters: Set(TodoTables.todoFilters)).register(on: app, at: "todos")
        RESTWrites<_, PersonInput>(store: store, filters: Set(TodoTables.personFilters))
            .register(on: app, at: "people")
    }
}
