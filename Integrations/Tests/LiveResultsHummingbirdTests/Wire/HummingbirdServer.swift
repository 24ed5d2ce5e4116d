import HTTPTypes
import Hummingbird
import LiveResults
import LiveResultsHummingbird
import LiveResultsTestSupport
import TodoServer

/// `LiveResultsHummingbird` under test: the routes on a `Router` of `LiveResultsRequestContext`, served by
/// `HTTPTestServer`, their endpoints among its services (so that they end their streams before it stops).
struct HummingbirdServer: ServerUnderTest {
    var testDescription: String { "Hummingbird" }
    var answersRefusedUpgrades: Bool { false }

    func serving<Result: Sendable>(
        _ store: MemoryTodoStore, options: LiveResultsOptions,
        _ body: @Sendable (ServedRoutes) async throws -> Result
    ) async throws -> Result {
        let router = Router(context: LiveResultsRequestContext.self)
        let results = router.addLiveResults(store.controller, at: "results", options: options)
        let relations = WireRoutes.relations(of: store)
        let todos = router.addLiveQueries(
            store.todos, at: "todos", filters: WireRoutes.todoFilters, orders: WireRoutes.todoOrders,
            defaultOrder: WireRoutes.todoDefaultOrder, sections: ["project"], maximumLimit: WireRoutes.maximumLimit,
            relations: relations, options: options)
        let mine = router.addLiveQueries(
            store.todos, at: "mine", filters: WireRoutes.todoFilters, orders: WireRoutes.todoOrders,
            maximumLimit: WireRoutes.maximumLimit,
            authorize: { request, _ in
                guard let project = request.headers[HTTPField.Name(WireRoutes.projectHeader)!] else {
                    throw HTTPError(.unauthorized)
                }
                return [.equal("project", project)]
            }, options: options)
        let people = router.addLiveQueries(
            store.people, at: "people", filters: WireRoutes.personFilters, orders: WireRoutes.personOrders,
            maximumLimit: WireRoutes.maximumLimit, options: options)
        return try await HTTPTestServer.serving(router, services: [results, todos, mine, people]) { port in
            try await body(
                ServedRoutes(base: "http://127.0.0.1:\(port)", results: results, todos: todos, mine: mine))
        }
    }
}
