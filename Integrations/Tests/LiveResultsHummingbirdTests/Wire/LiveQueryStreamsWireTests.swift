import Foundation
import LiveResults
import LiveResultsServing
import LiveResultsTestSupport
import LiveResultsWireSupport
import NIOHTTP1
import Testing
import TodoServer

/// A live query's whole results and streams (`GET /todos`, `/todos/events`), against every adapter: entity tags,
/// windows, resuming, and the streams' slots.
@Suite("Wire: live queries' streams", .timeLimit(.minutes(5)))
struct LiveQueryStreamsWireTests {
    /// The version `GET /todos?sections=project` serves now: the version that the streams of
    /// `/todos/events?sections=project` share.
    static func servedVersion(_ routes: ServedRoutes) async throws -> ResultsVersion {
        try await LiveQueriesWireTests.whole(routes, "").version
    }

    /// Inserts a to-do.
    static func insert(_ store: MemoryTodoStore, _ title: String, _ project: String, _ priority: Int) async throws {
        _ = try await store.insert([TodoInput(title: title, project: project, priority: priority)])
    }

    @Test(
        "a stream resumed with Last-Event-ID starts with one catch-up from that version",
        arguments: ServersUnderTest.all)
    func resumeIsOneCatchUp(server: any ServerUnderTest) async throws {
        let store = try await MemoryTodoStore()
        let options = LiveResultsOptions(heartbeatInterval: .milliseconds(200))
        try await server.serving(store, options: options) { routes in
            for index in 0..<5 { try await Self.insert(store, "t\(index)", "Home", index) }
            let first = Follower(try await EventStream.open("\(routes.base)/todos/events?sections=project").updates)
            #expect(await first.reach(try await Self.servedVersion(routes)))
            let seen = try #require(first.replica.version)
            first.stop()
            #expect(await eventually { routes.todos.openStreams == 0 }, "the dropped stream is closed")

            for index in 5..<12 { try await Self.insert(store, "t\(index)", "Work", 1) }
            _ = try await store.delete(try LiveQueriesWireTests.todo(1))
            let resumed = try await EventStream.open(
                "\(routes.base)/todos/events?sections=project", lastEventID: seen.description)
            var events = resumed.events.makeAsyncIterator()
            let catchUp = try #require(try await events.next()).update()
            #expect(catchUp.base == seen, "one catch-up from the version read")
            #expect(catchUp.version == (try await Self.servedVersion(routes)))
            _ = try first.replica.apply(catchUp)
            #expect(Array(first.replica.fetchedObjects) == Array(store.controller.fetchedObjects))
        }
    }

    @Test(
        "a Last-Event-ID or since that is not a held version gets the whole results", arguments: ServersUnderTest.all)
    func unheldVersionsGetTheWholeResults(server: any ServerUnderTest) async throws {
        let store = try await MemoryTodoStore()
        try await server.serving(store, options: LiveResultsOptions()) { routes in
            try await Self.insert(store, "a", "Home", 1)
            let current = try await Self.servedVersion(routes)
            let future = String(current.description.split(separator: "-")[0]) + "-99"
            for value in ["garbage", "0123456789abcdef-3", "", "%00", future] {
                for stream in [
                    try await EventStream.open("\(routes.base)/todos/events?sections=project", lastEventID: value),
                    try await EventStream.open("\(routes.base)/todos/events?sections=project&since=\(value)"),
                ] {
                    var events = stream.events.makeAsyncIterator()
                    let first = try #require(try await events.next()).update()
                    #expect(first.base == nil, "whole results for \(value)")
                    #expect(first.version == current, "\(value)")
                }
            }
        }
    }

    @Test(
        "streams beyond the limit get 503 with Retry-After; a closed one frees its slot",
        arguments: ServersUnderTest.all)
    func streamLimit(server: any ServerUnderTest) async throws {
        // A closed client is found out at the stream's next write: heartbeats make that soon.
        let options = LiveResultsOptions(maximumStreams: 2, heartbeatInterval: .milliseconds(200))
        try await server.serving(try await MemoryTodoStore(), options: options) { routes in
            var first: EventStream? = try await EventStream.open("\(routes.base)/todos/events?sections=project")
            let second = try await EventStream.open("\(routes.base)/todos/events?sections=project")
            let third = try await HTTP.send(.GET, "\(routes.base)/todos/events?sections=project")
            #expect(third.status == 503)
            #expect(third.header("Retry-After") == "1")
            #expect(routes.todos.refusedStreams == 1)
            #expect(first?.status == 200 && second.status == 200)
            first = nil
            #expect(await eventually { routes.todos.openStreams == 1 })
            let again = try await EventStream.open("\(routes.base)/todos/events?sections=project")
            #expect(again.status == 200)
        }
    }

    @Test("500 streams opened and dropped at once leave none open", arguments: ServersUnderTest.all)
    func manyStreamsOpenedAndDropped(server: any ServerUnderTest) async throws {
        let store = try await MemoryTodoStore()
        let options = LiveResultsOptions(heartbeatInterval: .milliseconds(200))
        try await server.serving(store, options: options) { routes in
            try await Self.insert(store, "a", "Home", 1)
            try await withThrowingTaskGroup(of: Void.self) { group in
                for _ in 0..<500 {
                    group.addTask {
                        let stream = try await EventStream.open("\(routes.base)/todos/events?sections=project")
                        var events = stream.events.makeAsyncIterator()
                        _ = try await events.next()
                    }
                }
                try await group.waitForAll()
            }
            #expect(routes.todos.servedStreams == 500)
            #expect(
                await eventually(timeout: .seconds(60)) { routes.todos.openStreams == 0 },
                "\(routes.todos.openStreams) open")
            try await Self.insert(store, "b", "Home", 1)
            #expect(await eventually { routes.todos.openStreams == 0 })
        }
    }

    @Test(
        "GET of a live query is the whole results with their version as ETag; If-None-Match gives 304 until it changes",
        arguments: ServersUnderTest.all)
    func wholeResultsAndETag(server: any ServerUnderTest) async throws {
        let store = try await MemoryTodoStore()
        try await server.serving(store, options: LiveResultsOptions()) { routes in
            try await Self.insert(store, "a", "Home", 1)
            let versioned = ("Accept", LiveQueriesWireTests.versioned)
            let reply = try await HTTP.send(.GET, "\(routes.base)/todos", headers: [versioned])
            #expect(reply.status == 200)
            let whole = try reply.decode(ResultsUpdate<Todo>.self)
            #expect(whole.base == nil)
            let tag = try #require(reply.header("ETag"))
            #expect(tag == "\"\(whole.version)\"")
            let again = try await HTTP.send(.GET, "\(routes.base)/todos", headers: [("If-None-Match", tag), versioned])
            #expect(again.status == 304)
            try await Self.insert(store, "b", "Home", 1)
            let changed = try await HTTP.send(
                .GET, "\(routes.base)/todos", headers: [("If-None-Match", tag), versioned])
            #expect(changed.status == 200)
        }
    }

    @Test(
        "?limit= and ?offset= serve a window of a live query, whole and streamed; bad values are 400",
        arguments: ServersUnderTest.all)
    func windows(server: any ServerUnderTest) async throws {
        let store = try await MemoryTodoStore()
        try await server.serving(store, options: LiveResultsOptions()) { routes in
            for index in 0..<8 { try await Self.insert(store, "t\(index)", "Home", 3) }
            // All in one project: the controller's order (by priority, then id) is the route's.
            func expected() -> [Todo] { Array(Array(store.controller.fetchedObjects)[2..<5]) }
            let page = try await HTTP.send(
                .GET, "\(routes.base)/todos?limit=3&offset=2", headers: [("Accept", LiveQueriesWireTests.versioned)]
            ).decode(ResultsUpdate<Todo>.self)
            let replica = ResultsReplica<Todo>()
            try replica.apply(page)
            #expect(Array(replica.fetchedObjects) == expected())
            let follower = Follower(try await EventStream.open("\(routes.base)/todos/events?offset=2&limit=3").updates)
            try await Self.insert(store, "first", "Home", 1)
            try await Self.insert(store, "last", "Home", 5)
            #expect(await eventually { Array(follower.replica.fetchedObjects) == expected() })
            #expect(follower.failure == nil)
            #expect(follower.replica.fetchedObjects.count == 3)
            follower.stop()
            for (bad, parameter) in [
                ("limit=-1", "limit"), ("limit=abc", "limit"), ("limit=100000", "limit"),
                ("limit=2&offset=-1", "offset"),
            ] {
                let reply = try await HTTP.send(.GET, "\(routes.base)/todos?\(bad)")
                #expect(reply.status == 400, "\(bad): \(reply.status)")
                #expect(reply.error?.hasPrefix(parameter) == true, "\(bad): \(reply.text)")
                #expect(try await HTTP.send(.GET, "\(routes.base)/todos/events?\(bad)").status == 400)
            }
        }
    }
}
