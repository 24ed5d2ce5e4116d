import Foundation
import LiveResults
import LiveResultsServing
import NIOHTTP1
import Testing
import TodoServer

/// `GET` of a live route, against every adapter: the whole results and PostgREST's answers, byte for byte.
@Suite("Wire: whole results and PostgREST's answers", .timeLimit(.minutes(5)))
struct WholeResultsWireTests {
    @Test(
        "GET /results is the whole results with their version as the entity tag; If-None-Match of it is 304",
        arguments: ServersUnderTest.all)
    func wholeResults(server: any ServerUnderTest) async throws {
        let store = try await MemoryTodoStore([Todo(id: 1, title: "milk", project: "Home", priority: 1)])
        try await server.serving(store, options: LiveResultsOptions()) { routes in
            let reply = try await HTTP.send(.GET, "\(routes.base)/results")
            #expect(reply.status == 200)
            #expect(reply.header("Content-Type") == "application/json; charset=utf-8")
            #expect(reply.header("Cache-Control") == "no-cache")
            let update = try reply.decode(ResultsUpdate<Todo>.self)
            #expect(update.base == nil)
            #expect(update.version == store.controller.version)
            #expect(reply.header("ETag") == "\"\(update.version)\"")
            let etag = try #require(reply.header("ETag"))
            let unchanged = try await HTTP.send(.GET, "\(routes.base)/results", headers: [("If-None-Match", etag)])
            #expect(unchanged.status == 304)
            #expect(unchanged.body.isEmpty)
            #expect(unchanged.header("ETag") == etag)
        }
    }

    @Test(
        "a ?limit= above the maximum is 400, its message as Hummingbird writes errors", arguments: ServersUnderTest.all)
    func limitRefused(server: any ServerUnderTest) async throws {
        try await server.serving(try await MemoryTodoStore(), options: LiveResultsOptions()) { routes in
            let reply = try await HTTP.send(.GET, "\(routes.base)/results?limit=5000")
            #expect(reply.status == 400)
            #expect(reply.text == #"{"error":{"message":"limit must be at most 1000"}}"#)
            let offset = try await HTTP.send(.GET, "\(routes.base)/results?offset=2")
            #expect(offset.status == 400)
            #expect(offset.text == #"{"error":{"message":"offset needs a limit"}}"#)
        }
    }

    @Test(
        "HEAD of the streams and of whole results is 404 with no body; of a live query, GET's head; no stream opens",
        arguments: ServersUnderTest.all)
    func headIsNotRouted(server: any ServerUnderTest) async throws {
        try await server.serving(try await MemoryTodoStore(WireRoutes.todos), options: LiveResultsOptions()) {
            routes in
            for path in ["/results", "/results/events", "/results/updates", "/todos/events", "/todos/updates"] {
                // One connection for them all: a HEAD answered as a stream once broke it.
                let reply = try await HTTP.send(.HEAD, routes.base + path, timeout: .seconds(10))
                #expect(reply.status == 404, "HEAD \(path)")
                #expect(reply.header("Content-Length") == "0", "HEAD \(path)")
                #expect(reply.header("Content-Type") == nil, "HEAD \(path)")
            }
            // A live query's HEAD is PostgREST's: GET's status and headers, no body (see PostgRESTAnswersWireTests).
            let query = try await HTTP.send(.HEAD, routes.base + "/todos", timeout: .seconds(10))
            #expect(query.status == 200 && query.body.isEmpty)
            #expect(query.header("Content-Range") == "0-2/*", "the three to-dos")
            #expect(routes.results.servedStreams == 0 && routes.todos.servedStreams == 0)
            #expect(try await HTTP.send(.GET, "\(routes.base)/todos").status == 200)
        }
    }

    @Test(
        "GET of a live query answers as PostgREST: the window's rows, their columns, Content-Range",
        arguments: ServersUnderTest.all)
    func postgRESTAnswer(server: any ServerUnderTest) async throws {
        let store = try await MemoryTodoStore(WireRoutes.todos)
        try await server.serving(store, options: LiveResultsOptions()) { routes in
            let reply = try await HTTP.send(.GET, "\(routes.base)/todos?select=id,title&order=id&limit=2")
            #expect(reply.status == 200)
            #expect(reply.header("Content-Range") == "0-1/*")
            #expect(reply.text == #"[{"id":1,"title":"milk"},{"id":2,"title":"mail"}]"#)
            let counted = try await HTTP.send(
                .GET, "\(routes.base)/todos?select=title&project=eq.Home&order=priority.desc&offset=1&limit=1",
                headers: [("Prefer", "count=exact")])
            #expect(counted.status == 206)
            #expect(counted.header("Content-Range") == "1-1/2")
            #expect(counted.text == #"[{"title":"milk"}]"#)
            let embedded = try await HTTP.send(.GET, "\(routes.base)/todos?select=title,assignee:people(name)&id=eq.1")
            #expect(embedded.text == #"[{"title":"milk","assignee":null}]"#)
        }
    }
}
