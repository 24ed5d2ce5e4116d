import AsyncHTTPClient
import Foundation
import LiveResults
import LiveResultsServing
import LiveResultsTestSupport
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
