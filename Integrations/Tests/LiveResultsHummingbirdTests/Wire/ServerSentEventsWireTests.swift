import AsyncHTTPClient
import Foundation
import LiveResults
import LiveResultsServing
import LiveResultsTestSupport
import LiveResultsWireSupport
import NIOConcurrencyHelpers
import NIOCore
import NIOHTTP1
import Testing
import TodoServer

/// `GET …/events`, against every adapter: the framing, resuming, the slots and the shutdown.
@Suite("Wire: Server-Sent Events", .timeLimit(.minutes(5)))
struct ServerSentEventsWireTests {
    @Test(
        "the stream opens with retry:, then the whole results with their version as id:, then each change",
        arguments: ServersUnderTest.all)
    func framing(server: any ServerUnderTest) async throws {
        let store = try await MemoryTodoStore([Todo(id: 1, title: "milk", project: "Home", priority: 1)])
        try await server.serving(store, options: LiveResultsOptions()) { routes in
            let response = try await HTTPClient.shared.execute(
                HTTPClientRequest(url: "\(routes.base)/results/events"), timeout: .seconds(60))
            #expect(response.status == .ok)
            #expect(response.headers.first(name: "Content-Type") == "text/event-stream")
            #expect(response.headers.first(name: "Cache-Control") == "no-cache")
            #expect(response.headers.first(name: "X-Accel-Buffering") == "no")
            var body = response.body.makeAsyncIterator()
            var text = ""
            // The whole results: the first event ends with its blank line.
            while text.components(separatedBy: "\n\n").count < 3, let chunk = try await body.next() {
                text += String(buffer: chunk)
            }
            let whole = store.controller.version
            #expect(text.hasPrefix("retry: 1000\n\nid: \(whole)\ndata: {"))
            _ = try await store.insert([TodoInput(title: "mail", project: "Work", priority: 2)])
            var change = ""
            while !change.hasSuffix("\n\n"), let chunk = try await body.next() { change += String(buffer: chunk) }
            let update = try JSONDecoder().decode(
                ResultsUpdate<Todo>.self,
                from: Data(try #require(change.split(separator: "\n").last?.dropFirst("data: ".count)).utf8))
            #expect(change.hasPrefix("id: \(store.controller.version)\ndata: "))
            #expect(update.base == whole)
        }
    }

    @Test("Last-Event-ID resumes with one catch-up, before ?since=", arguments: ServersUnderTest.all)
    func resume(server: any ServerUnderTest) async throws {
        let store = try await MemoryTodoStore()
        try await server.serving(store, options: LiveResultsOptions()) { routes in
            // The controller keeps versions while a stream is open: this first client's.
            let first = try await EventStream.open("\(routes.base)/results/events")
            var events = first.events.makeAsyncIterator()
            let seen = try #require(try await events.next()?.update().version)
            _ = try await store.insert([TodoInput(title: "a", project: "Home", priority: 1)])
            _ = try await store.insert([TodoInput(title: "b", project: "Work", priority: 2)])
            let resumed = try await EventStream.open(
                "\(routes.base)/results/events?since=not-a-version", lastEventID: "\(seen)")
            var resumedEvents = resumed.events.makeAsyncIterator()
            let catchUp = try #require(try await resumedEvents.next()?.update())
            #expect(catchUp.base == seen)
            #expect(catchUp.version == store.controller.version)
            let unknown = try await EventStream.open("\(routes.base)/results/events?since=not-a-version")
            var unknownEvents = unknown.events.makeAsyncIterator()
            #expect(try await unknownEvents.next()?.update().base == nil, "the whole results")
        }
    }

    @Test(
        "a full route refuses a stream with 503 and Retry-After; a live query's with PostgREST's error",
        arguments: ServersUnderTest.all)
    func fullRouteRefuses(server: any ServerUnderTest) async throws {
        try await server.serving(try await MemoryTodoStore(), options: LiveResultsOptions(maximumStreams: 0)) {
            routes in
            let plain = try await HTTP.send(.GET, "\(routes.base)/results/events")
            #expect(plain.status == 503)
            #expect(plain.header("Retry-After") == "1")
            #expect(plain.text == #"{"error":"too many open streams; try again later"}"#)
            let postgREST = try await HTTP.send(.GET, "\(routes.base)/todos/events")
            #expect(postgREST.status == 503)
            #expect(postgREST.code == "PGRST003")
            #expect(postgREST.header("Proxy-Status") == "PostgREST; error=PGRST003")
            #expect(routes.results.refusedStreams == 1)
            #expect(routes.todos.refusedStreams == 1)
        }
    }

    @Test("a client that goes away frees its slot", arguments: ServersUnderTest.all)
    func departureFreesTheSlot(server: any ServerUnderTest) async throws {
        // A heartbeat, so that an adapter that sees a departure only when a write fails sees it soon.
        let options = LiveResultsOptions(heartbeatInterval: .milliseconds(200))
        try await server.serving(try await MemoryTodoStore(), options: options) { routes in
            do {
                let stream = try await EventStream.open("\(routes.base)/results/events")
                var events = stream.events.makeAsyncIterator()
                _ = try await events.next()
                #expect(routes.results.openStreams == 1)
            }
            #expect(await eventually(timeout: .seconds(10)) { routes.results.openStreams == 0 })
        }
    }

    @Test(
        "a client that stops reading is collapsed to one catch-up and then follows again",
        arguments: ServersUnderTest.all)
    func stalledClientCatchesUp(server: any ServerUnderTest) async throws {
        let store = try await MemoryTodoStore()
        try await server.serving(store, options: LiveResultsOptions(bufferLimit: 16)) { routes in
            let socket = try RawSocket(port: routes.port)
            try socket.send("GET /results/events HTTP/1.1\r\nHost: 127.0.0.1\r\nAccept: text/event-stream\r\n\r\n")
            #expect(await eventually { routes.results.openStreams == 1 })
            // About 12 MB of updates, far more than the socket buffers hold, while the client does not read.
            let title = String(repeating: "x", count: 30_000)
            let writes = 400
            for index in 0..<writes {
                _ = try await store.insert([
                    TodoInput(title: "\(index) \(title)", project: "P\(index % 7)", priority: index % 3)
                ])
            }
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
                return Array(replica.fetchedObjects) == Array(store.controller.fetchedObjects)
            }
            #expect(reached)
            #expect(response.head.hasPrefix("HTTP/1.1 200"))
            #expect(events < writes, "\(events) updates for \(writes) writes")
        }
    }

    /// A client that stops reading and then closes its side has left: its stream, stuck in a write the client
    /// will never read, must end with it, and not only give back its slot (which let such clients pass the
    /// streams' bound while each kept its stream, window and query).
    @Test(
        "a client that stops reading, then closes its side: its stream ends and its query is released",
        arguments: ServersUnderTest.all)
    func halfClosedStalledClient(server: any ServerUnderTest) async throws {
        let store = try await MemoryTodoStore()
        try await server.serving(store, options: LiveResultsOptions(liveQueryGracePeriod: .milliseconds(100))) {
            routes in
            let socket = try RawSocket(port: routes.port)
            try socket.send(
                "GET /todos/events?project=eq.P0 HTTP/1.1\r\nHost: 127.0.0.1\r\nAccept: text/event-stream\r\n\r\n")
            #expect(await eventually { routes.todos.openStreams == 1 && routes.todos.liveQueryCount == 1 })
            // About 12 MB of updates of that query's window, far more than the socket buffers hold.
            let title = String(repeating: "x", count: 30_000)
            for index in 0..<400 {
                _ = try await store.insert([TodoInput(title: "\(index) \(title)", project: "P0", priority: index % 3)])
            }
            socket.closeWriting()
            #expect(await eventually(timeout: .seconds(30)) { routes.todos.liveQueryCount == 0 })
            #expect(routes.todos.openStreams == 0)
        }
    }

    @Test("a graceful shutdown ends the open streams", arguments: ServersUnderTest.all)
    func shutdownEndsStreams(server: any ServerUnderTest) async throws {
        let stream = try await server.serving(try await MemoryTodoStore(), options: LiveResultsOptions()) {
            routes in
            let stream = try await EventStream.open("\(routes.base)/results/events")
            var events = stream.events.makeAsyncIterator()
            _ = try await events.next()
            return stream
        }
        let ended = Locked(false)
        let reader = Task {
            for try await _ in stream.events {}
            ended.withLockedValue { $0 = true }
        }
        defer { reader.cancel() }
        #expect(await eventually(timeout: .seconds(15)) { ended.value })
    }
}
