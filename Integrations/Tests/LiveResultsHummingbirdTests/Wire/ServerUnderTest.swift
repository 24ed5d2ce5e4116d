import Foundation
import LiveResults
import LiveResultsServing
import Testing
import TodoServer

/// A framework adapter under test: it serves a store's live routes on a loopback port while a test runs. The wire
/// suite runs each case against every adapter (`@Test(arguments: ServersUnderTest.all)`), so that they send the
/// same bytes, with the same limits and refusals.
///
/// The routes, whatever the adapter (`WireRoutes` says what they are):
/// - `/results`: the live results of the store's controller (`addLiveResults`/`liveResults`);
/// - `/todos`: live queries of the store's to-dos, embedding their assignee, by priority unless they name an order;
/// - `/people`: live queries of the store's people;
/// - `/mine`: live queries of the store's to-dos, each request's authorized to the project its `X-Project` header
///   names (an `authorize` of the framework's, which refuses a request without it with `401`).
protocol ServerUnderTest: Sendable, CustomTestStringConvertible {
    /// Whether a WebSocket upgrade the routes refuse is answered with the refusal's status, headers and body.
    /// Hummingbird-WebSocket answers any refused upgrade with an empty `400` and closes the connection.
    var answersRefusedUpgrades: Bool { get }

    /// Serves `store`'s routes with `options` on 127.0.0.1 while `body` runs, then shuts the server down
    /// gracefully (which must end its streams first), within bounds.
    func serving<Result: Sendable>(
        _ store: MemoryTodoStore, options: LiveResultsOptions,
        _ body: @Sendable (ServedRoutes) async throws -> Result
    ) async throws -> Result
}

/// The routes an adapter serves, as a test reaches them.
struct ServedRoutes: Sendable {
    /// `http://127.0.0.1:PORT`.
    let base: String
    /// The endpoint of `/results`.
    let results: LiveResultsEndpoint
    /// The endpoint of `/todos`.
    let todos: LiveResultsEndpoint
    /// The endpoint of `/mine`.
    let mine: LiveResultsEndpoint

    /// The port.
    var port: Int { Int(base.split(separator: ":").last ?? "") ?? 0 }

    /// `ws://127.0.0.1:PORT`.
    var webSocketBase: String { "ws" + base.dropFirst("http".count) }
}

/// What the wire suite's routes are, the same for every adapter.
enum WireRoutes {
    /// The columns of `/todos` a query may filter on.
    static let todoFilters = ["id", "project", "priority", "title", "assignee_id"]
    /// The columns of `/todos` a query may order by.
    static let todoOrders = ["priority", "title", "id"]
    /// The order of a query of `/todos` that names none: by priority (then by id, as every order ends).
    static let todoDefaultOrder = [LiveQueryOrdering(column: "priority")]
    /// The columns of `/people` a query may filter on.
    static let personFilters = ["id", "name"]
    /// The columns of `/people` a query may order by.
    static let personOrders = ["name", "id"]
    /// The largest window of a live query.
    static let maximumLimit = 50
    /// Three to-dos, two at home and one at work, whose order by priority is not their ids'.
    static let todos = [
        Todo(id: 1, title: "milk", project: "Home", priority: 2),
        Todo(id: 2, title: "mail", project: "Work", priority: 1),
        Todo(id: 3, title: "mop", project: "Home", priority: 3),
    ]
    /// The header that names the project a request of `/mine` may see.
    static let projectHeader = "X-Project"

    /// The tables `select=` may embed: to-dos and people, a to-do's assignee a person.
    static func relations(of store: MemoryTodoStore) -> LiveRelations {
        var relations = LiveRelations()
        relations.addTable("todos", source: store.todos)
        relations.addTable("people", source: store.people)
        relations.addForeignKey(from: "todos", column: "assignee_id", to: "people")
        return relations
    }
}

/// The adapters the wire suite runs against.
enum ServersUnderTest {
    /// Every adapter the package builds (Vapor's unless it is left out, see `Package.swift`).
    #if LIVERESULTS_VAPOR
        static let all: [any ServerUnderTest] = [HummingbirdServer(), VaporServer()]
    #else
        static let all: [any ServerUnderTest] = [HummingbirdServer()]
    #endif
}
