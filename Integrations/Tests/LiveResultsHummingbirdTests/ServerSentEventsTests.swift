import Foundation
import LiveResults
import LiveResultsTestSupport
import LiveResultsHummingbird
import LiveResultsWireSupport
import NIOHTTP1
import Testing
import TodoServer

/// Replicas fed by the server example's Server-Sent Events route, as a browser or a Swift client reads it. The
/// route's wire behaviour against every adapter is `ServerSentEventsWireTests`'.
@Suite("Server-Sent Events", .timeLimit(.minutes(5)))
struct ServerSentEventsTests {
    @Test("a replica over SSE equals the controller after randomized writes through the API")
    func replicaFollowsRandomWrites() async throws {
        try await RunningServer.with(try await MemoryTodoStore()) { server in
            let stream = try await EventStream.open("\(server.base)/todos/events?sections=project")
            #expect(stream.status == 200)
            #expect(stream.contentType == "text/event-stream")
            let follower = Follower(stream.updates)
            var random = SeededRandom(seed: 7)
            var ids: [Int64] = []
            for step in 0..<150 {
                try await RandomWrites.step(server, ids: &ids, random: &random)
                if step % 25 == 24 {
                    #expect(await follower.reach(try await server.servedVersion()), "\(follower.failure ?? "")")
                    #expect(Array(follower.replica.fetchedObjects) == Array(server.controller.fetchedObjects))
                }
            }
            #expect(await follower.reach(try await server.servedVersion()))
            #expect(follower.failure == nil)
            #expect(follower.bases.first == .some(nil), "the whole results first")
            #expect(follower.bases.dropFirst().allSatisfy { $0 != nil }, "then change sets only")
            let whole = try await HTTP.send(
                .GET, "\(server.base)/todos?sections=project", headers: [("Accept", "application/vnd.liveresults+json")]
            )
            .decode(ResultsUpdate<Todo>.self)
            #expect(whole.version == follower.replica.version)
            follower.stop()
        }
    }

    /// A server that never ends a line or an event must not fill its reader's memory.
    @Test("the parser refuses an event or a line over its maximum size; comments count toward no event")
    func parserBound() throws {
        var parser = ServerSentEventParser(maximumEventSize: 16)
        #expect(try parser.feed(Data(": heartbeat\n".utf8)).isEmpty)
        #expect(try parser.feed(Data("data: 0123456789\n\n".utf8)).map(\.data) == ["0123456789"])
        #expect(throws: ServerSentEventParser.EventTooLarge.self) {
            try parser.feed(Data("data: 01234\ndata: 56789\n".utf8))
        }
        var endless = ServerSentEventParser(maximumEventSize: 1_024)
        #expect(throws: ServerSentEventParser.EventTooLarge(maximumEventSize: 1_024)) {
            for _ in 0..<100 { _ = try endless.feed(Data(repeating: UInt8(ascii: "x"), count: 100)) }
        }
    }

    @Test("a stream resumed with Last-Event-ID starts with one catch-up from that version")
    func resumeIsOneCatchUp() async throws {
        var options = LiveResultsOptions()
        options.heartbeatInterval = .milliseconds(200)
        try await RunningServer.with(try await MemoryTodoStore(), options: options) { server in
            for index in 0..<5 { try await HTTP.create(server, title: "t\(index)", project: "Home", priority: index) }
            let first = Follower(try await EventStream.open("\(server.base)/todos/events?sections=project").updates)
            #expect(await first.reach(try await server.servedVersion()))
            let seen = try #require(first.replica.version)
            first.stop()
            #expect(await eventually { server.endpoint.openStreams == 0 }, "the dropped stream is closed")

            for index in 5..<12 { try await HTTP.create(server, title: "t\(index)", project: "Work", priority: 1) }
            _ = try await HTTP.send(.DELETE, "\(server.base)/todos/1")
            let resumed = try await EventStream.open(
                "\(server.base)/todos/events?sections=project", lastEventID: seen.description)
            var events = resumed.events.makeAsyncIterator()
            let catchUp = try #require(try await events.next()).update()
            #expect(catchUp.base == seen, "one catch-up from the version read")
            let served = try await server.servedVersion()
            #expect(catchUp.version == served)
            _ = try first.replica.apply(catchUp)
            #expect(Array(first.replica.fetchedObjects) == Array(server.controller.fetchedObjects))
        }
    }

    @Test(
        "a Last-Event-ID or since that is not a held version gets the whole results",
        arguments: ["garbage", "0123456789abcdef-3", "", "%00", "FUTURE"])
    func unheldVersionsGetTheWholeResults(kind: String) async throws {
        try await RunningServer.with(try await MemoryTodoStore()) { server in
            try await HTTP.create(server, title: "a", project: "Home", priority: 1)
            let current = try await server.servedVersion()
            let future = String(current.description.split(separator: "-")[0]) + "-99"
            let value = kind == "FUTURE" ? future : kind
            for stream in [
                try await EventStream.open("\(server.base)/todos/events?sections=project", lastEventID: value),
                try await EventStream.open("\(server.base)/todos/events?sections=project&since=\(value)"),
            ] {
                var events = stream.events.makeAsyncIterator()
                let first = try #require(try await events.next()).update()
                #expect(first.base == nil, "whole results for \(value)")
                #expect(first.version == current)
            }
        }
    }

    @Test("streams beyond the limit get 503 with Retry-After; a closed one frees its slot")
    func streamLimit() async throws {
        var options = LiveResultsOptions()
        options.maximumStreams = 2
        // A closed client is found out at the stream's next write: heartbeats make that soon.
        options.heartbeatInterval = .milliseconds(200)
        try await RunningServer.with(try await MemoryTodoStore(), options: options) { server in
            var first: EventStream? = try await EventStream.open("\(server.base)/todos/events?sections=project")
            let second = try await EventStream.open("\(server.base)/todos/events?sections=project")
            let third = try await HTTP.send(.GET, "\(server.base)/todos/events?sections=project")
            #expect(third.status == 503)
            #expect(third.headers.first(name: "retry-after") == "1")
            #expect(server.endpoint.refusedStreams == 1)
            #expect(first?.status == 200 && second.status == 200)
            first = nil
            #expect(await eventually { server.endpoint.openStreams == 1 })
            let again = try await EventStream.open("\(server.base)/todos/events?sections=project")
            #expect(again.status == 200)
        }
    }

    @Test("500 streams opened and dropped at once leave none open")
    func manyStreamsOpenedAndDropped() async throws {
        var options = LiveResultsOptions()
        options.heartbeatInterval = .milliseconds(200)
        try await RunningServer.with(try await MemoryTodoStore(), options: options) { server in
            try await HTTP.create(server, title: "a", project: "Home", priority: 1)
            try await withThrowingTaskGroup(of: Void.self) { group in
                for _ in 0..<500 {
                    group.addTask {
                        let stream = try await EventStream.open("\(server.base)/todos/events?sections=project")
                        var events = stream.events.makeAsyncIterator()
                        _ = try await events.next()
                    }
                }
                try await group.waitForAll()
            }
            #expect(server.endpoint.servedStreams == 500)
            #expect(
                await eventually(timeout: .seconds(60)) { server.endpoint.openStreams == 0 },
                "\(server.endpoint.openStreams) open")
            try await HTTP.create(server, title: "b", project: "Home", priority: 1)
            #expect(await eventually { server.endpoint.openStreams == 0 })
        }
    }

    @Test("GET of the results is the whole results with their version as ETag; If-None-Match gives 304")
    func wholeResultsAndETag() async throws {
        try await RunningServer.with(try await MemoryTodoStore()) { server in
            try await HTTP.create(server, title: "a", project: "Home", priority: 1)
            let reply = try await HTTP.send(
                .GET, "\(server.base)/todos", headers: [("Accept", "application/vnd.liveresults+json")])
            #expect(reply.status == 200)
            let whole = try reply.decode(ResultsUpdate<Todo>.self)
            #expect(whole.base == nil)
            let tag = try #require(reply.headers.first(name: "etag"))
            #expect(tag == "\"\(whole.version)\"")
            let versioned = ("Accept", "application/vnd.liveresults+json")
            let again = try await HTTP.send(
                .GET, "\(server.base)/todos", headers: [("If-None-Match", tag), versioned])
            #expect(again.status == 304)
            try await HTTP.create(server, title: "b", project: "Home", priority: 1)
            let changed = try await HTTP.send(
                .GET, "\(server.base)/todos", headers: [("If-None-Match", tag), versioned])
            #expect(changed.status == 200)
        }
    }

    @Test("?limit= and ?offset= serve a window of the results, whole and streamed; bad values are 400")
    func windows() async throws {
        try await RunningServer.with(try await MemoryTodoStore()) { server in
            for index in 0..<8 { try await HTTP.create(server, title: "t\(index)", project: "Home", priority: 3) }
            func expected() -> [Todo] { Array(Array(server.controller.fetchedObjects)[2..<5]) }
            let page = try await HTTP.send(
                .GET, "\(server.base)/todos?limit=3&offset=2", headers: [("Accept", "application/vnd.liveresults+json")]
            ).decode(ResultsUpdate<Todo>.self)
            let replica = ResultsReplica<Todo>()
            try replica.apply(page)
            #expect(Array(replica.fetchedObjects) == expected())
            let follower = Follower(try await EventStream.open("\(server.base)/todos/events?offset=2&limit=3").updates)
            try await HTTP.create(server, title: "first", project: "Home", priority: 1)
            try await HTTP.create(server, title: "last", project: "Home", priority: 5)
            #expect(await eventually { Array(follower.replica.fetchedObjects) == expected() })
            #expect(follower.failure == nil)
            #expect(follower.replica.fetchedObjects.count == 3)
            follower.stop()
            for bad in ["limit=-1", "limit=abc", "limit=100000", "limit=2&offset=-1"] {
                let reply = try await HTTP.send(.GET, "\(server.base)/todos?\(bad)")
                #expect(reply.status == 400, "\(bad): \(reply.status)")
                let parameter =
                    bad.contains("-1") && bad.contains("offset")
                    ? "offset" : bad.hasPrefix("offset") ? "offset" : "limit"
                #expect(reply.error?.hasPrefix(parameter) == true, "\(bad): \(reply.text)")
                #expect(try await HTTP.send(.GET, "\(server.base)/todos/events?\(bad)").status == 400)
            }
        }
    }
}
