import LiveResultsServing
import Vapor

extension LiveResultsEndpoint: LifecycleHandler {
    /// Ends the streams on the application's shutdown, before its server stops: Server-Sent Events responses
    /// finish and WebSockets close with code 1001 (going away), which tells clients to reconnect.
    ///
    /// ```swift
    /// let endpoint = app.liveResults(controller, at: "todos")
    /// app.lifecycle.use(endpoint)
    /// ```
    ///
    /// Vapor runs its lifecycle handlers' shutdowns before it stops its server, which waits for open responses
    /// (up to its `shutdownTimeout`): without this handler, a stream would hold the server's shutdown until then.
    /// The wait for the streams to end is bounded by the server's `shutdownTimeout` too: a stream whose client
    /// stopped reading ends only once its pending write does.
    ///
    /// - Complexity: O(*s*) for *s* open streams.
    public func shutdownAsync(_ application: Application) async {
        let timeout = application.http.server.configuration.shutdownTimeout
        await withTaskGroup(of: Void.self) { group in
            group.addTask { await self.shutDownStreams() }
            group.addTask { try? await Task.sleep(for: .nanoseconds(timeout.nanoseconds)) }
            await group.next()
            group.cancelAll()
        }
    }

    /// Tells the streams to end on the application's shutdown, without waiting for them (Vapor's synchronous
    /// shutdown); see ``shutdownAsync(_:)``.
    ///
    /// - Complexity: O(*s*) for *s* open streams.
    public func shutdown(_ application: Application) {
        endStreams()
    }
}
