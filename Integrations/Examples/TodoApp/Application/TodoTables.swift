import Foundation
import HTTPTypes
import LiveResults
import LiveResultsServing

/// What the server serves of its tables, the same for every framework: the columns a live query of `/todos` and
/// `/people` may filter and order on, their relations, and `/health`'s answer.
public enum TodoTables {
    /// The columns of `/todos` a query may filter on.
    public static let todoFilters = ["id", "project", "priority", "title", "assignee_id"]
    /// The columns of `/todos` a query may order by.
    public static let todoOrders = ["priority", "title", "id"]
    /// The order of a query of `/todos` that names none: by priority (then id).
    public static let todoDefaultOrder = [LiveQueryOrdering(column: "priority")]
    /// The columns of `/todos` a query may section by.
    public static let todoSections = ["project"]
    /// The columns of `/people` a query may filter on.
    public static let personFilters = ["id", "name"]
    /// The columns of `/people` a query may order by.
    public static let personOrders = ["name", "id"]

    /// The tables' relations: each to-do embeds its assignee (`assignee:people(name)`), each person their to-dos
    /// (`todos(title)`).
    ///
    /// - Complexity: O(1).
    public static func relations(_ store: some TodoStore) -> LiveRelations {
        var relations = LiveRelations()
        relations.addTable("todos", source: store.todos)
        relations.addTable("people", source: store.people)
        relations.addForeignKey(from: "todos", column: "assignee_id", to: "people")
        return relations
    }

    /// The streams' and live queries' limits `configuration` asks for, and the store's source status.
    ///
    /// - Complexity: O(1).
    public static func options(
        _ configuration: TodoConfiguration, store: some TodoStore, metrics: TodoMetrics
    ) -> LiveResultsOptions {
        var options = LiveResultsOptions()
        options.metricsFactory = metrics.factory
        options.maximumLiveQueries = configuration.maximumLiveQueries
        options.maximumStreams = configuration.maximumStreams
        options.sourceStatus = store.sourceStatus
        return options
    }

    /// `GET /health`: `200 {"status":"ok"}` when the store can serve writes.
    ///
    /// - Throws: The store's error when it cannot (``TodoServerError/unavailable(_:)`` when its database is out
    ///   of reach).
    /// - Complexity: The store's check (with PostgreSQL, a query).
    public static func health(_ store: some TodoStore) async throws -> RESTResponse {
        try await store.checkHealth()
        var headers = HTTPFields()
        headers[.contentType] = "application/json; charset=utf-8"
        return RESTResponse(status: .ok, headers: headers, body: try JSONEncoder().encode(["status": "ok"]))
    }
}
