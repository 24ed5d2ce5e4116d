import Hummingbird
import HummingbirdWebSocket
import Logging
import NIOConcurrencyHelpers
import ServiceLifecycle

/// A Hummingbird server in the test process on a loopback port, for the tests that need a real socket:
/// Server-Sent Events and WebSockets, raw sockets, and clients that take a URL (`LiveResultsHTTP`, AsyncHTTPClient).
/// A test of what a request gets back (a status, a body, a header) needs no socket: it uses HummingbirdTesting's
/// `.router` mode, which hands the request to the router.
///
/// HummingbirdTesting's `.live` mode runs a server too, but it is not used here. Measured with hummingbird 2.28.1 and
/// swift-service-lifecycle 2.13.0 on Linux, with the HTTP and Hummingbird tests moved to `.live`:
/// - It hangs. Its client connects in the background; when the test returns before that connection is up, the
///   client's `shutdown()` gives up on it, and the connection it opens afterwards is never closed. An
///   `.http1WebSocketUpgrade` server never closes a connection that has sent no request: it waits in the upgrade
///   negotiation through a graceful shutdown, past `maximumGracefulShutdownDuration` and through cancellation.
///   `.live` sets no shutdown bound, so the test never ends. `PagesTests/refusedRetried`, whose server returns at
///   once, hung in 3 runs of 7; a test that returned at once from `.live` 40 times hung at the 33rd (a plain HTTP/1
///   server, which closes such a connection, returned 40 times of 40). The hung process's threads were all idle
///   (`gdb`), and `ss` showed both ends of that connection in it, with no listener.
/// - It handles SIGTERM and SIGINT (a `ServiceGroup` with `gracefulShutdownSignals: [.sigterm, .sigint]`).
///   libdispatch's handler stays installed after the group ends: after one `.live` test, the test process outlived
///   a SIGTERM, so neither `timeout` nor `pkill` in `.ci/run` could end a hung run (it took SIGKILL).
/// - It serves on `localhost` and a port of the system's choice only: a test cannot start a server again on the
///   port a client follows (`ServerExampleTests/serverRestart` failed).
/// - The application's services start before its server and stop after it, so a `LiveResultsEndpoint` cannot end
///   its streams first: WebSockets closed with 1000 (normal closure) instead of 1001 (going away), and
///   `WebSocketTests/shutdownClosesWithGoingAway` failed.
///
/// Here the services follow the application (they stop first), the group handles no signals, the shutdown is
/// bounded, and a server that does not stop within the bound fails the test instead of hanging it.
public enum HTTPTestServer {
    /// How long a graceful shutdown may take before the server's tasks are cancelled: 10 seconds. (Once, on a loaded
    /// machine, a request that its client had given up on held a test past its time limit.)
    public static let shutdownTimeout = Duration.seconds(10)

    /// How long the server may take to listen: 60 seconds.
    public static let startTimeout = Duration.seconds(60)

    /// Serves `router` on 127.0.0.1 while `body` runs, then shuts it down gracefully.
    ///
    /// The server speaks HTTP/1.1 and upgrades to WebSocket on the router's WebSocket routes.
    ///
    /// ```swift
    /// let (router, endpoint) = try TodoRoutes.router(store)
    /// try await HTTPTestServer.serving(router, services: [endpoint]) { port in
    ///     let reply = try await HTTP.send(.GET, "http://127.0.0.1:\(port)/todos")
    /// }
    /// ```
    ///
    /// - Parameters:
    ///   - router: The routes to serve.
    ///   - port: The port to listen on; 0, the default, lets the system choose one.
    ///   - services: Services that run with the server, such as a `LiveResultsEndpoint`. They start after the
    ///     server and stop before it: an endpoint's streams end (WebSockets with 1001, going away) before the
    ///     server stops.
    ///   - body: The test, given the port the server listens on.
    /// - Returns: What `body` returns.
    /// - Throws: What `body` throws; else the server's error, or a ``TestFailure`` when it did not listen within
    ///   ``startTimeout`` or did not stop within ``shutdownTimeout`` and 5 more seconds for its cancellation.
    public static func serving<Context: WebSocketRequestContext, Result: Sendable>(
        _ router: Router<Context>, port: Int = 0, services: [any Service] = [],
        _ body: @Sendable (_ port: Int) async throws -> Result
    ) async throws -> Result {
        var logger = Logger(label: "test-server")
        logger.logLevel = .warning
        let (ports, listening) = AsyncStream<Int>.makeStream()
        let app = Application(
            router: router, server: .http1WebSocketUpgrade(webSocketRouter: router),
            configuration: .init(address: .hostname("127.0.0.1", port: port)),
            onServerRunning: { listening.yield($0.localAddress?.port ?? 0) }, logger: logger)
        var configuration = ServiceGroupConfiguration(services: [app] + services, logger: logger)
        configuration.maximumGracefulShutdownDuration = shutdownTimeout
        let group = ServiceGroup(configuration: configuration)
        let ended = NIOLockedValueBox<Swift.Result<Void, any Error>?>(nil)
        // A task of its own, not a child task: a server that does not stop fails the test, where a task group
        // would wait for it.
        let server = Task {
            let outcome: Swift.Result<Void, any Error>
            do {
                try await group.run()
                outcome = .success(())
            } catch {
                outcome = .failure(error)
            }
            ended.withLockedValue { $0 = outcome }
            listening.finish()
        }
        let startBound = Task {
            try await Task.sleep(for: startTimeout)
            listening.finish()
        }
        var started = ports.makeAsyncIterator()
        let listeningPort = await started.next()
        startBound.cancel()

        let outcome: Swift.Result<Result, any Error>
        if let listeningPort {
            do {
                outcome = .success(try await body(listeningPort))
            } catch {
                outcome = .failure(error)
            }
        } else if case .failure(let error) = ended.withLockedValue({ $0 }) {
            outcome = .failure(error)
        } else {
            outcome = .failure(TestFailure("the test server did not listen within \(startTimeout)"))
        }
        await group.triggerGracefulShutdown()
        // The graceful shutdown's bound, then 5 s for the cancellation that follows it.
        let stopBound = shutdownTimeout + .seconds(5)
        let stopped = await eventually(timeout: stopBound) { ended.withLockedValue { $0 != nil } }
        if !stopped { server.cancel() }
        let result = try outcome.get()
        guard stopped else {
            throw TestFailure(
                "the test server on port \(listeningPort ?? port) did not stop within \(stopBound): is a connection "
                    + "that sent no request still open?")
        }
        try ended.withLockedValue { $0 }?.get()
        return result
    }
}
