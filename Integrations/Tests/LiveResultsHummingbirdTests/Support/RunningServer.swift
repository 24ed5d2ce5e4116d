import Foundation
import Hummingbird
import HummingbirdWebSocket
import LiveResults
import LiveResultsHummingbird
import Logging
import NIOHTTP1
import ServiceLifecycle
import TodoServer

/// The server example's routes, served in this process on a port of the system's choosing.
struct RunningServer: Sendable {
    let port: Int
    let store: any TodoStore
    let endpoint: LiveResultsEndpoint

    var controller: FetchedResultsController<Todo> { store.controller }
    var base: String { "http://127.0.0.1:\(port)" }

    /// The version `GET /todos?sections=project` serves now (its versioned whole results): the version of the
    /// default query's window sectioned by project, which the streams of `/todos/events?sections=project` and
    /// `/todos/updates?sections=project` share.
    func servedVersion() async throws -> ResultsVersion {
        try await HTTP.send(
            .GET, "\(base)/todos?sections=project", headers: [("Accept", "application/vnd.liveresults+json")]
        ).decode(ResultsUpdate<Todo>.self).version
    }

    /// Runs `store`'s server for `body`, then shuts it down gracefully (which must close its streams).
    static func with<Result: Sendable>(
        _ store: some TodoStore, options: LiveResultsOptions = LiveResultsOptions(),
        _ body: @Sendable (RunningServer) async throws -> Result
    ) async throws -> Result {
        let (router, endpoint, peopleEndpoint) = try TodoRoutes.router(store, options: options)
        let (ports, portSignal) = AsyncStream<Int>.makeStream()
        var logger = Logger(label: "test-server")
        logger.logLevel = .warning
        let app = Application(
            router: router,
            server: .http1WebSocketUpgrade(webSocketRouter: router),
            configuration: .init(address: .hostname("127.0.0.1", port: 0)),
            onServerRunning: { channel in portSignal.yield(channel.localAddress?.port ?? 0) },
            logger: logger)
        let services = ServiceGroup(
            configuration: .init(
                services: [app, endpoint, peopleEndpoint], gracefulShutdownSignals: [], logger: logger))
        return try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask { try await services.run() }
            var portIterator = ports.makeAsyncIterator()
            guard let port = await portIterator.next() else { throw TestFailure("the server did not start") }
            let server = RunningServer(port: port, store: store, endpoint: endpoint)
            let result: Swift.Result<Result, any Error>
            do {
                result = .success(try await body(server))
            } catch {
                result = .failure(error)
            }
            await services.triggerGracefulShutdown()
            try await group.waitForAll()
            return try result.get()
        }
    }
}

/// A failure of the tests' own making.
struct TestFailure: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}
