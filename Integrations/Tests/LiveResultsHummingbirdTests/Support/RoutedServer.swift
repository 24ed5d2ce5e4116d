import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import LiveResults
import LiveResultsHummingbird
import NIOCore
import NIOFoundationCompat
import NIOHTTP1
import TodoServer

/// The server example's routes answered through HummingbirdTesting's `.router` mode: each request goes to the
/// router, with no server and no socket. For the tests of what a request gets back (a status, a body, a header);
/// a stream or a connection needs a `RunningServer`.
///
/// A response is written whole before `send` returns: never send a request whose stream stays open.
struct RoutedServer: TodoRequests {
    let client: any TestClientProtocol
    let store: any TodoStore
    let endpoint: LiveResultsEndpoint

    /// A controller of all the store's to-dos (``TodoStore/followTodos()``), which follows them while `with`'s
    /// body runs.
    let controller: FetchedResultsController<Todo>

    /// The server's own origin as the routes see it: `.router` names `localhost` as every request's authority.
    static let origin = "http://localhost"

    /// Answers `body`'s requests with `store`'s routes, which report to `metrics`.
    static func with<Result: Sendable>(
        _ store: some TodoStore, options: LiveResultsOptions = LiveResultsOptions(),
        metrics: TodoMetrics = TodoMetrics(), _ body: @Sendable (RoutedServer) async throws -> Result
    ) async throws -> Result {
        let (router, endpoint, _) = try TodoRoutes.router(store, options: options, metrics: metrics)
        let followed = try await store.followTodos()
        defer { followed.subscription.cancel() }
        // An application without services: `.router` then runs no ServiceGroup, which would handle SIGTERM and
        // SIGINT in the test process (see `HTTPTestServer`).
        return try await Application(router: router).test(.router) { client in
            try await body(
                RoutedServer(client: client, store: store, endpoint: endpoint, controller: followed.controller))
        }
    }

    func send(
        _ method: HTTPMethod, _ path: String, body: Data?, headers: [(String, String)]
    ) async throws -> HTTP.Reply {
        var fields = HTTPFields()
        for (name, value) in headers { fields.append(HTTPField(name: HTTPField.Name(name)!, value: value)) }
        if body != nil, fields[.contentType] == nil { fields[.contentType] = "application/json" }
        let response = try await client.execute(
            uri: path, method: HTTPRequest.Method(method.rawValue)!, headers: fields,
            body: body.map { ByteBuffer(data: $0) })
        return HTTP.Reply(
            status: Int(response.status.code),
            headers: HTTPHeaders(response.headers.map { ($0.name.rawName, $0.value) }),
            body: Data(buffer: response.body))
    }
}
