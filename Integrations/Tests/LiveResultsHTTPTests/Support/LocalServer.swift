import Foundation
import Hummingbird
import HummingbirdWebSocket
import Logging
import ServiceLifecycle

/// Serves a Hummingbird router in this process on a loopback port (the system's choice, or `port`) while
/// `body` runs, then shuts it down gracefully.
enum LocalServer {
    static func serving<Context: WebSocketRequestContext, Result: Sendable>(
        _ router: Router<Context>, port: Int = 0,
        _ body: @Sendable (_ port: Int) async throws -> Result
    ) async throws -> Result {
        var logger = Logger(label: "http-tests")
        logger.logLevel = .warning
        let (ports, signal) = AsyncStream<Int>.makeStream()
        let app = Application(
            router: router, server: .http1WebSocketUpgrade(webSocketRouter: router),
            configuration: .init(address: .hostname("127.0.0.1", port: port)),
            onServerRunning: { signal.yield($0.localAddress?.port ?? 0) }, logger: logger)
        var configuration = ServiceGroupConfiguration(services: [app], gracefulShutdownSignals: [], logger: logger)
        // A graceful shutdown waits for the requests in flight: bounded, then the server's task is cancelled. (Once,
        // on a loaded machine, a request a client had given up on held a test past its time limit.)
        configuration.maximumGracefulShutdownDuration = .seconds(10)
        let group = ServiceGroup(configuration: configuration)
        return try await withThrowingTaskGroup(of: Void.self) { tasks in
            tasks.addTask { try await group.run() }
            var started = ports.makeAsyncIterator()
            guard let port = await started.next() else { throw Failure("the server did not start") }
            let outcome: Swift.Result<Result, any Error>
            do {
                outcome = .success(try await body(port))
            } catch {
                outcome = .failure(error)
            }
            await group.triggerGracefulShutdown()
            try await tasks.waitForAll()
            return try outcome.get()
        }
    }
}

/// A failure of the tests' own making.
struct Failure: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}
