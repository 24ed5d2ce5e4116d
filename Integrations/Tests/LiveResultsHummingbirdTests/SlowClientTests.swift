import Foundation
import LiveResults
import LiveResultsTestSupport
import LiveResultsHummingbird
import LiveResultsWireSupport
import Testing
import TodoServer

/// A client that connects and stops reading costs the server a bounded queue, and catches up in one update
/// when it reads again.
@Suite("Slow clients", .timeLimit(.minutes(5)))
struct SlowClientTests {
    @Test("a client that stops reading is collapsed to one catch-up and then follows again")
    func stalledClientCatchesUp() async throws {
        var options = LiveResultsOptions()
        options.bufferLimit = 16
        try await RunningServer.with(try await MemoryTodoStore(), options: options) { server in
            let socket = try RawSocket(port: server.port)
            try socket.send(
                "GET /todos/events?sections=project HTTP/1.1\r\nHost: 127.0.0.1\r\nAccept: text/event-stream\r\n\r\n")
            #expect(await eventually { server.endpoint.openStreams == 1 })

            // About 12 MB of updates, far more than the socket buffers hold (4 MB at most for a sender on
            // Linux by default), while the client does not read.
            let title = String(repeating: "x", count: 30_000)
            let writes = 400
            for index in 0..<writes {
                try await HTTP.create(server, title: "\(index) \(title)", project: "P\(index % 7)", priority: index % 3)
            }
            // The stream's queue is collapsed, not grown: the client gets far fewer updates than the writes (below).

            // Reads again: the replica reaches the results in far fewer updates than the writes.
            let replica = ResultsReplica<Todo>()
            var response = ChunkedResponse()
            var parser = ServerSentEventParser()
            var events = 0
            let reached = await eventually(timeout: .seconds(60)) {
                guard let bytes = socket.readAvailable() else { return true }
                for event in (try? parser.feed(Data(response.feed(bytes)))) ?? [] {
                    events += 1
                    if let update = try? event.update() { _ = try? replica.apply(update) }
                }
                return Array(replica.fetchedObjects) == Array(server.controller.fetchedObjects)
            }
            #expect(reached)
            #expect(response.head.hasPrefix("HTTP/1.1 200"))
            #expect(Array(replica.fetchedObjects) == Array(server.controller.fetchedObjects))
            #expect(events < writes, "\(events) updates for \(writes) writes")
        }
    }

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
