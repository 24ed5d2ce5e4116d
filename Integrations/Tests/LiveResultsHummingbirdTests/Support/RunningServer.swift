import Foundation
import LiveResults
import LiveResultsHummingbird
import LiveResultsTestSupport
import NIOHTTP1
import TodoServer

/// The server example's routes served in this process on a loopback port of the system's choosing
/// (`HTTPTestServer`), for the tests of streams and connections; a test of what a request gets back uses a
/// `RoutedServer`.
struct RunningServer: TodoRequests {
    let port: Int
    let store: any TodoStore
    let endpoint: LiveResultsEndpoint

    /// A controller of all the store's to-dos (``TodoStore/followTodos()``), which follows them while `with`'s
    /// body runs.
    let controller: FetchedResultsController<Todo>
    var base: String { "http://127.0.0.1:\(port)" }

    func send(
        _ method: HTTPMethod, _ path: String, body: Data?, headers: [(String, String)]
    ) async throws -> HTTP.Reply {
        try await HTTP.send(method, base + path, body: body, headers: headers)
    }

    /// The version `GET /todos?sections=project` serves now (its versioned whole results): the version of the
    /// default query's window sectioned by project, which the streams of `/todos/events?sections=project` and
    /// `/todos/updates?sections=project` share.
    func servedVersion() async throws -> ResultsVersion {
        try await HTTP.send(
            .GET, "\(base)/todos?sections=project", headers: [("Accept", "application/vnd.liveresults+json")]
        ).decode(ResultsUpdate<Todo>.self).version
    }

    /// Runs `store`'s server for `body`, then shuts it down gracefully (which must close its streams: the endpoint
    /// ends them before the server stops).
    static func with<Result: Sendable>(
        _ store: some TodoStore, options: LiveResultsOptions = LiveResultsOptions(),
        _ body: @Sendable (RunningServer) async throws -> Result
    ) async throws -> Result {
        let (router, endpoint, peopleEndpoint) = try TodoRoutes.router(store, options: options)
        let followed = try await store.followTodos()
        defer { followed.subscription.cancel() }
        return try await HTTPTestServer.serving(router, services: [endpoint, peopleEndpoint]) { port in
            try await body(RunningServer(port: port, store: store, endpoint: endpoint, controller: followed.controller))
        }
    }
}
