import Foundation
import HummingbirdWSClient
import LiveResults
import LiveResultsServing
import LiveResultsTestSupport
import NIOHTTP1
import NIOWebSocket
import Testing
import TodoServer

/// `GET …/updates`, against every adapter: one update per text message, `?since=`, the client's messages, a plain
/// `GET`, the shutdown.
@Suite("Wire: WebSocket", .timeLimit(.minutes(5)))
struct WebSocketWireTests {
    typealias Connection = WebSocketTests.Connection

    @Test("the whole results, then each change; since= resumes with one catch-up", arguments: ServersUnderTest.all)
    func updatesAndResume(server: any ServerUnderTest) async throws {
        let store = try await MemoryTodoStore()
        try await server.serving(store, options: LiveResultsOptions()) { routes in
            let connection = Connection.open("\(routes.webSocketBase)/results/updates")
            var updates = connection.updates.makeAsyncIterator()
            let whole = try #require(try await updates.next())
            #expect(whole.base == nil)
            _ = try await store.insert([TodoInput(title: "a", project: "Home", priority: 1)])
            let change = try #require(try await updates.next())
            #expect(change.base == whole.version)
            _ = try await store.insert([TodoInput(title: "b", project: "Work", priority: 2)])
            let resumed = Connection.open("\(routes.webSocketBase)/results/updates?since=\(change.version)")
            var resumedUpdates = resumed.updates.makeAsyncIterator()
            let catchUp = try #require(try await resumedUpdates.next())
            #expect(catchUp.base == change.version)
            #expect(catchUp.version == store.controller.version)
            connection.closed.cancel()
            resumed.closed.cancel()
        }
    }

    @Test("a client that sends a message is closed with 1008 and frees its slot", arguments: ServersUnderTest.all)
    func clientMessageCloses(server: any ServerUnderTest) async throws {
        try await server.serving(try await MemoryTodoStore(), options: LiveResultsOptions()) { routes in
            let rude = Connection.open("\(routes.webSocketBase)/results/updates", send: "hello")
            let frame = try await rude.closed.value
            #expect(frame?.closeCode == .policyViolation)
            #expect(await eventually { routes.results.openStreams == 0 })
        }
    }

    @Test("since= resumes a live query's WebSocket stream with one catch-up", arguments: ServersUnderTest.all)
    func liveQueryResume(server: any ServerUnderTest) async throws {
        let store = try await MemoryTodoStore()
        try await server.serving(store, options: LiveResultsOptions()) { routes in
            // The controller keeps versions while a stream is open: this first client's.
            let earlier = Connection.open("\(routes.webSocketBase)/todos/updates?sections=project")
            let follower = Follower(earlier.updates)
            _ = try await store.insert([TodoInput(title: "a", project: "Home", priority: 1)])
            #expect(await follower.reach(try await LiveQueryStreamsWireTests.servedVersion(routes)))
            let seen = try #require(follower.replica.version)
            earlier.closed.cancel()
            _ = try await store.insert([TodoInput(title: "b", project: "Work", priority: 2)])
            let connection = Connection.open("\(routes.webSocketBase)/todos/updates?sections=project&since=\(seen)")
            var updates = connection.updates.makeAsyncIterator()
            let first = try #require(try await updates.next())
            #expect(first.base == seen)
            #expect(first.version == (try await LiveQueryStreamsWireTests.servedVersion(routes)))
            connection.closed.cancel()
        }
    }

    @Test(
        "a client that sends garbage to a live query's WebSocket is closed with 1008; the route serves on",
        arguments: ServersUnderTest.all)
    func liveQueryGarbageCloses(server: any ServerUnderTest) async throws {
        let store = try await MemoryTodoStore()
        try await server.serving(store, options: LiveResultsOptions()) { routes in
            let rude = Connection.open("\(routes.webSocketBase)/todos/updates", send: "\u{0}garbage{{")
            let frame = try await rude.closed.value
            #expect(frame?.closeCode == .policyViolation)
            #expect(await eventually { routes.todos.openStreams == 0 })

            let polite = Connection.open("\(routes.webSocketBase)/todos/updates?sections=project")
            let follower = Follower(polite.updates)
            _ = try await store.insert([TodoInput(title: "after", project: "Home", priority: 1)])
            #expect(await follower.reach(try await LiveQueryStreamsWireTests.servedVersion(routes)))
            polite.closed.cancel()
        }
    }

    @Test("a plain GET of the WebSocket route is 426 Upgrade Required", arguments: ServersUnderTest.all)
    func plainGet(server: any ServerUnderTest) async throws {
        try await server.serving(try await MemoryTodoStore(), options: LiveResultsOptions()) { routes in
            let reply = try await HTTP.send(.GET, "\(routes.base)/results/updates")
            #expect(reply.status == 426)
            #expect(reply.text == #"{"error":{"message":"this route is a WebSocket"}}"#)
        }
    }

    /// The answer to a WebSocket upgrade of `path`, as a client reads it on its socket.
    static func upgrade(_ routes: ServedRoutes, _ path: String) async throws -> String {
        let socket = try RawSocket(port: routes.port)
        try socket.send(
            "GET \(path) HTTP/1.1\r\nHost: 127.0.0.1\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
                + "Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n\r\n")
        var received: [UInt8] = []
        // A refusal's body is one JSON object, whose closing brace ends the answer; an empty 400 closes.
        _ = await eventually(timeout: .seconds(10)) {
            guard let bytes = socket.readAvailable() else { return true }
            received += bytes
            return received.last == UInt8(ascii: "}")
        }
        return String(decoding: received, as: UTF8.self)
    }

    @Test(
        "a full route refuses the upgrade with 503 and Retry-After, a bad live query with PostgREST's error",
        arguments: ServersUnderTest.all)
    func upgradeRefused(server: any ServerUnderTest) async throws {
        try await server.serving(try await MemoryTodoStore(), options: LiveResultsOptions(maximumStreams: 0)) {
            routes in
            let full = try await Self.upgrade(routes, "/results/updates")
            #expect(routes.results.refusedStreams == 1)
            if server.answersRefusedUpgrades {
                #expect(full.hasPrefix("HTTP/1.1 503"), "\(full)")
                #expect(full.lowercased().contains("retry-after: 1\r\n"), "\(full)")
                #expect(full.hasSuffix(#"{"error":"too many open streams; try again later"}"#), "\(full)")
            } else {
                #expect(full.hasPrefix("HTTP/1.1 400"), "\(full)")
            }
        }
        try await server.serving(try await MemoryTodoStore(), options: LiveResultsOptions()) { routes in
            let bad = try await Self.upgrade(routes, "/todos/updates?nope=eq.1")
            #expect(bad.hasPrefix("HTTP/1.1 400"), "\(bad)")
            if server.answersRefusedUpgrades { #expect(bad.contains(#""code":"42703""#), "\(bad)") }
        }
    }

    @Test("a graceful shutdown closes WebSockets with 1001 (going away)", arguments: ServersUnderTest.all)
    func shutdownClosesWithGoingAway(server: any ServerUnderTest) async throws {
        let connection = try await server.serving(try await MemoryTodoStore(), options: LiveResultsOptions()) {
            routes in
            let connection = Connection.open("\(routes.webSocketBase)/todos/updates")
            var updates = connection.updates.makeAsyncIterator()
            _ = try await updates.next()  // the whole results: the stream is open
            return connection
        }
        let frame = try await connection.closed.value
        #expect(frame?.closeCode == .goingAway)
    }
}
