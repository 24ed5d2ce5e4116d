import Foundation
import LiveResults
import LiveResultsTestSupport
import LiveResultsHummingbird
import LiveResultsWireSupport
import Testing
import TodoServer

/// A client that stops reading and leaves: its stream ends with it. (That a client that stops reading costs a
/// bounded queue and catches up in one update is `ServerSentEventsWireTests`', against every adapter.)
@Suite("Slow clients", .timeLimit(.minutes(5)))
struct SlowClientTests {
    /// A client that stops reading and then closes its side has left: its stream, stuck in a write the client
    /// will never read, must end with it, and not only give back its slot (which let such clients pass the
    /// streams' bound while each kept its stream, window and query).
    @Test("a client that stops reading, then closes its side: its stream ends and its query is released")
    func halfClosedStalledClient() async throws {
        var options = LiveResultsOptions()
        options.liveQueryGracePeriod = .milliseconds(100)
        try await RunningServer.with(try await MemoryTodoStore(), options: options) { server in
            let socket = try RawSocket(port: server.port)
            try socket.send(
                "GET /todos/events?project=eq.P0 HTTP/1.1\r\nHost: 127.0.0.1\r\nAccept: text/event-stream\r\n\r\n")
            #expect(await eventually { server.endpoint.openStreams == 1 && server.endpoint.liveQueryCount == 1 })
            // About 12 MB of updates of that query's window, far more than the socket buffers hold.
            let title = String(repeating: "x", count: 30_000)
            for index in 0..<400 {
                try await HTTP.create(server, title: "\(index) \(title)", project: "P0", priority: index % 3)
            }
            socket.closeWriting()
            #expect(await eventually(timeout: .seconds(30)) { server.endpoint.liveQueryCount == 0 })
            #expect(server.endpoint.openStreams == 0)
        }
    }
}
