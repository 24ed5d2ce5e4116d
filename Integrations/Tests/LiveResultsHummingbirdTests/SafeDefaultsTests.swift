import Foundation
import LiveResults
import NIOHTTP1
import Testing
import TodoServer

/// What the server example refuses by default, and what it sends with its page: answers of its router
/// (`RoutedServer`), which need no socket. The page, the origin check and `/health` are the example's own, on
/// Hummingbird only: no adapter serves them, so they are not among the wire suite's cases.
@Suite("Safe defaults", .timeLimit(.minutes(5)))
struct SafeDefaultsTests {
    static let body = Data(#"{"title": "a", "project": "Home", "priority": 1}"#.utf8)

    @Test(
        "a write that is not JSON gets 415 and writes nothing",
        arguments: ["", "text/plain", "application/x-www-form-urlencoded"])
    func writesMustBeJSON(contentType: String) async throws {
        try await RoutedServer.with(try await MemoryTodoStore()) { server in
            let reply = try await server.send(
                .POST, "/todos", body: Self.body, headers: [("Content-Type", contentType)])
            #expect(reply.status == 415)
            #expect(reply.error == "a write wants Content-Type: application/json")
            #expect(server.controller.fetchedObjects.isEmpty)
            let json = try await server.send(
                .POST, "/todos", body: Self.body,
                headers: [("Content-Type", "Application/JSON; charset=utf-8")])
            #expect(json.status == 201)
        }
    }

    @Test("the page comes with a restrictive Content-Security-Policy, from the binary, equal to its source")
    func page() async throws {
        try await RoutedServer.with(try await MemoryTodoStore()) { server in
            let page = try await server.send(.GET, "/")
            #expect(page.status == 200)
            let policy = page.headers.first(name: "Content-Security-Policy") ?? ""
            #expect(policy.hasPrefix("default-src 'none'; script-src 'sha256-"))
            #expect(policy.contains("connect-src 'self'") && policy.contains("frame-ancestors 'none'"))
            let source = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
                .appendingPathComponent("../../Examples/TodoApp/Page/index.html")
            #expect(page.text + "\n" == (try String(contentsOf: source, encoding: .utf8)), "run Scripts/embed-page.py")
        }
    }

    @Test("a write from another origin gets 403; the server's own and allowed ones pass")
    func origins() async throws {
        try await RoutedServer.with(try await MemoryTodoStore()) { server in
            let foreign = try await server.send(
                .POST, "/todos", body: Self.body, headers: [("Origin", "http://evil.example")])
            #expect(foreign.status == 403)
            let own = try await server.send(
                .POST, "/todos", body: Self.body, headers: [("Origin", RoutedServer.origin)])
            #expect(own.status == 201)
            let read = try await server.send(.GET, "/todos", headers: [("Origin", "http://evil.example")])
            #expect(read.status == 200)
        }
    }

    @Test("GET /health answers 200 when the store can serve writes")
    func health() async throws {
        try await RoutedServer.with(try await MemoryTodoStore()) { server in
            let reply = try await server.send(.GET, "/health")
            #expect(reply.status == 200)
            #expect(reply.text == #"{"status":"ok"}"#)
        }
    }
}
