import Foundation
import LiveResults
import LiveResultsServing
import NIOHTTP1
import Testing
import TodoServer

/// What a live-queries route refuses, against every adapter: PostgREST's statuses, codes and bodies.
@Suite("Wire: live queries' refusals", .timeLimit(.minutes(5)))
struct LiveQueryRefusalsWireTests {
    /// A request a live-queries route refuses, and what PostgREST answers it.
    struct Refused: Sendable, CustomTestStringConvertible {
        let path: String
        var headers: [(String, String)] = []
        let status: Int
        let code: String

        var testDescription: String { "\(path) → \(status) \(code)" }
    }

    static let refused = [
        Refused(path: "/todos?nope=eq.1", status: 400, code: "42703"),
        Refused(path: "/todos?priority=eq.high", status: 400, code: "PGRST100"),
        Refused(path: "/todos?limit=51", status: 400, code: "PGRST100"),
        Refused(path: "/todos?sections=title", status: 400, code: "PGRST100"),
        Refused(path: "/todos?select=title,owner:users(name)", status: 400, code: "PGRST200"),
        Refused(path: "/todos/events?select=title,owner:users(name)", status: 400, code: "PGRST200"),
        Refused(path: "/todos/events?limit=51", status: 400, code: "PGRST100"),
        Refused(path: "/todos", headers: [("Accept-Profile", "private")], status: 406, code: "PGRST106"),
    ]

    @Test("each refusal is PostgREST's status, code and body", arguments: ServersUnderTest.all)
    func refusals(server: any ServerUnderTest) async throws {
        try await server.serving(try await MemoryTodoStore(), options: LiveResultsOptions()) { routes in
            for refused in Self.refused {
                let reply = try await HTTP.send(.GET, routes.base + refused.path, headers: refused.headers)
                #expect(reply.status == refused.status, "\(refused.testDescription): \(reply.text)")
                #expect(reply.code == refused.code, "\(refused.testDescription): \(reply.text)")
                #expect(reply.header("Content-Type")?.hasPrefix("application/json") == true)
            }
        }
    }

    @Test(
        "authorize's conditions are ANDed into every request's query; its error is the framework's answer",
        arguments: ServersUnderTest.all)
    func authorize(server: any ServerUnderTest) async throws {
        let store = try await MemoryTodoStore(WireRoutes.todos)
        try await server.serving(store, options: LiveResultsOptions()) { routes in
            let home = [(WireRoutes.projectHeader, "Home")]
            let mine = try await HTTP.send(.GET, "\(routes.base)/mine?select=id", headers: home)
            #expect(mine.text == #"[{"id":1},{"id":3}]"#)
            let notMine = try await HTTP.send(.GET, "\(routes.base)/mine?select=id&project=eq.Work", headers: home)
            #expect(notMine.text == "[]")
            #expect(try await HTTP.send(.GET, "\(routes.base)/mine").status == 401)
            #expect(try await HTTP.send(.GET, "\(routes.base)/mine/events").status == 401)
            let stream = try await EventStream.open("\(routes.base)/mine/events?select=id", headers: home)
            #expect(stream.status == 200)
        }
    }

    /// Requests whose answers are the same bytes from every adapter, headers and all: PostgREST's answers, the
    /// refusals, `HEAD`. Not the versioned whole results, whose JSON keys come in the order `JSONEncoder` picks,
    /// which differs from one answer to the next whatever the adapter.
    static let answered: [(method: HTTPMethod, path: String, headers: [(String, String)])] = [
        (.GET, "/todos?select=id,title,project", []),
        (.GET, "/todos?project=eq.Home&limit=2", [("Prefer", "count=exact")]),
        (.GET, "/todos?offset=9", [("Prefer", "count=exact")]),
        (.GET, "/todos?id=eq.2", [("Accept", "application/vnd.pgrst.object+json")]),
        (.GET, "/todos?project=eq.Home", [("Accept", "application/vnd.pgrst.object+json")]),
        (.GET, "/todos?select=title,rank:priority&order=priority.desc,id.asc", [("Accept-Profile", "public")]),
        (.GET, "/todos/?title=eq.milk+x", []), (.GET, "/todos?select=id&title=in.(milk,%22mop%22)", []),
        (.GET, "/people?order=name", []), (.GET, "/results?limit=5000", []), (.GET, "/results/updates", []),
        (.HEAD, "/todos", []), (.HEAD, "/todos?project=eq.Home", [("Prefer", "count=exact")]),
        (.HEAD, "/todos?owner=eq.1", []), (.HEAD, "/todos/events", []), (.HEAD, "/results", []),
        (.HEAD, "/results/updates", []),
    ]

    @Test("every adapter answers the same bytes", .enabled(if: ServersUnderTest.all.count > 1))
    func sameBytes() async throws {
        // What the framework adds to every answer, not the routes.
        let frameworks: Set<String> = ["date", "server", "connection"]
        var answers: [[String]] = []
        for server in ServersUnderTest.all {
            let store = try await MemoryTodoStore(WireRoutes.todos)
            answers.append(
                try await server.serving(store, options: LiveResultsOptions()) { routes in
                    var answers: [String] = []
                    for refused in Self.refused {
                        let reply = try await HTTP.send(.GET, routes.base + refused.path, headers: refused.headers)
                        answers.append("\(reply.status) \(reply.header("Proxy-Status") ?? "") \(reply.text)")
                    }
                    for (method, path, headers) in Self.answered {
                        let reply = try await HTTP.send(method, routes.base + path, headers: headers)
                        let fields = reply.headers.filter { !frameworks.contains($0.name.lowercased()) }
                            .map { "\($0.name.lowercased()): \($0.value)" }.sorted()
                        answers.append("\(method) \(path) \(reply.status) \(fields) \(reply.text)")
                    }
                    return answers
                })
        }
        for other in answers.dropFirst() {
            for (answer, first) in zip(other, answers[0]) { #expect(answer == first) }
            #expect(other.count == answers[0].count)
        }
    }
}
