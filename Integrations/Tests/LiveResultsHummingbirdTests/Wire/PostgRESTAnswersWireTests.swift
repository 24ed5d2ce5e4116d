import Foundation
import LiveResults
import LiveResultsServing
import NIOHTTP1
import Testing
import TodoServer

/// `GET /todos?QUERY` answers as PostgREST does, against every adapter: rows in the query's order,
/// `Content-Range`, one object, counts.
@Suite("Wire: PostgREST's answers", .timeLimit(.minutes(5)))
struct PostgRESTAnswersWireTests {
    private static func get(_ routes: ServedRoutes, _ query: String, _ headers: [(String, String)] = [])
        async throws -> HTTP.Reply
    {
        try await HTTP.send(.GET, "\(routes.base)/todos?\(query)", headers: headers)
    }

    private static func rows(_ reply: HTTP.Reply) throws -> [[String: Any]] {
        try #require(try JSONSerialization.jsonObject(with: reply.body) as? [[String: Any]])
    }

    /// Serves the to-dos of the live queries' suite with `server` while `body` runs.
    private static func serving(
        _ server: any ServerUnderTest, _ body: @Sendable (ServedRoutes) async throws -> Void
    ) async throws {
        try await server.serving(
            try await MemoryTodoStore(LiveQueriesWireTests.todos), options: LiveResultsOptions(), body)
    }

    @Test(
        "an array of rows in exactly the order order= names, the id ascending ending it; Content-Range",
        arguments: ServersUnderTest.all)
    func rowsInOrder(server: any ServerUnderTest) async throws {
        try await Self.serving(server) { routes in
            let all = try await Self.get(routes, "")
            #expect(all.status == 200)
            #expect(all.header("Content-Type")?.hasPrefix("application/json") == true)
            #expect(all.header("Content-Range") == "0-4/*")
            #expect(try Self.rows(all).map { $0["id"] as? Int } == [3, 2, 1, 5, 4], "by priority, then id")
            let ordered = try await Self.get(routes, "order=priority.desc&limit=3&offset=1")
            #expect(try Self.rows(ordered).map { $0["id"] as? Int } == [1, 5, 2])
            #expect(ordered.header("Content-Range") == "1-3/*")
            let empty = try await Self.get(routes, "project=eq.Nowhere")
            #expect(empty.status == 200 && empty.text == "[]")
            #expect(empty.header("Content-Range") == "*/*")
        }
    }

    @Test(
        "Prefer: count=exact gives the total without limit and offset, and 206 for part of it",
        arguments: ServersUnderTest.all)
    func counts(server: any ServerUnderTest) async throws {
        try await Self.serving(server) { routes in
            let part = try await Self.get(routes, "project=eq.Home&limit=2", [("Prefer", "count=exact")])
            #expect(part.status == 206)
            #expect(part.header("Content-Range") == "0-1/3")
            #expect(part.header("Preference-Applied") == "count=exact")
            let whole = try await Self.get(routes, "project=eq.Home", [("Prefer", "count=exact")])
            #expect(whole.status == 200 && whole.header("Content-Range") == "0-2/3")
            let none = try await Self.get(routes, "project=eq.Nowhere", [("Prefer", "count=exact")])
            #expect(none.status == 200 && none.header("Content-Range") == "*/0")
            let past = try await Self.get(routes, "offset=9", [("Prefer", "count=exact")])
            #expect(past.status == 416 && past.code == "PGRST103")
            #expect(past.errorField("details") == "An offset of 9 was requested, but there are only 5 rows.")
        }
    }

    @Test(
        "HEAD answers GET's status and headers without the body, as PostgREST's clients count rows with it",
        arguments: ServersUnderTest.all)
    func head(server: any ServerUnderTest) async throws {
        try await Self.serving(server) { routes in
            let url = "\(routes.base)/todos?project=eq.Home&limit=2"
            let counted = try await HTTP.send(.HEAD, url, headers: [("Prefer", "count=exact")])
            #expect(counted.status == 206 && counted.body.isEmpty)
            #expect(counted.header("Content-Range") == "0-1/3")
            let refused = try await HTTP.send(.HEAD, "\(routes.base)/todos?owner=eq.1")
            #expect(refused.status == 400 && refused.body.isEmpty)
            #expect(refused.header("Proxy-Status") == "PostgREST; error=42703")
            // The connection still serves the next request: no body was left on it.
            let after = try await Self.get(routes, "project=eq.Home", [("Prefer", "count=exact")])
            #expect(after.status == 200 && after.header("Content-Range") == "0-2/3")
        }
    }

    @Test(
        "Accept: application/vnd.pgrst.object+json answers one object, or 406 PGRST116",
        arguments: ServersUnderTest.all)
    func singleObject(server: any ServerUnderTest) async throws {
        try await Self.serving(server) { routes in
            let object = [("Accept", "application/vnd.pgrst.object+json")]
            let one = try await Self.get(routes, "id=eq.2", object)
            #expect(one.status == 200)
            #expect(one.header("Content-Type")?.hasPrefix("application/vnd.pgrst.object+json") == true)
            #expect(
                (try JSONSerialization.jsonObject(with: one.body) as? [String: Any])?["title"] as? String == "Report")
            for (query, rows) in [("id=eq.42", 0), ("project=eq.Home", 3)] {
                let refused = try await Self.get(routes, query, object)
                #expect(refused.status == 406)
                #expect(
                    refused.text
                        == #"{"code":"PGRST116","message":"Cannot coerce the result to a single JSON object","details":"The result contains \#(rows) rows","hint":null}"#
                )
            }
        }
    }

    @Test(
        "select= gives exactly the keys asked for, in their order; * in the table's order",
        arguments: ServersUnderTest.all)
    func projection(server: any ServerUnderTest) async throws {
        try await Self.serving(server) { routes in
            let reply = try await Self.get(routes, "select=title,rank:priority&id=eq.1")
            #expect(reply.text == #"[{"title":"Milk","rank":2}]"#)
            let all = try await Self.get(routes, "select=*&id=eq.1")
            #expect(all.text == #"[{"id":1,"title":"Milk","project":"Home","priority":2,"assignee_id":null}]"#)
        }
    }

    @Test(
        "sections=project sections the results; without it one section, the rows PostgREST answers",
        arguments: ServersUnderTest.all)
    func sections(server: any ServerUnderTest) async throws {
        try await Self.serving(server) { routes in
            let versioned = [("Accept", LiveQueriesWireTests.versioned)]
            let sectioned = try await Self.get(routes, "sections=project", versioned).decode(ResultsUpdate<Todo>.self)
            let plain = try await Self.get(routes, "", versioned).decode(ResultsUpdate<Todo>.self)
            guard case .results(let bySection) = sectioned.content, case .results(let one) = plain.content else {
                Issue.record("whole results expected")
                return
            }
            #expect(bySection.map(\.name) == ["Home", "Work"])
            #expect(one.count == 1)
            let rows = try Self.rows(try await Self.get(routes, ""))
            #expect(one.first?.entities.map(\.id) == rows.map { ($0["id"] as? Int).map(Int64.init) ?? -1 })
        }
    }

    @Test("Accept-Profile: public is served, another schema is 406 PGRST106", arguments: ServersUnderTest.all)
    func profiles(server: any ServerUnderTest) async throws {
        try await Self.serving(server) { routes in
            #expect(try await Self.get(routes, "", [("Accept-Profile", "public")]).status == 200)
            let other = try await Self.get(routes, "", [("Accept-Profile", "private")])
            #expect(other.status == 406 && other.code == "PGRST106")
            #expect(other.error == "Invalid schema: private")
        }
    }

    @Test("/people serves its own live queries", arguments: ServersUnderTest.all)
    func people(server: any ServerUnderTest) async throws {
        let store = try await MemoryTodoStore(people: [Person(id: 1, name: "Bo"), Person(id: 2, name: "Ann")])
        try await server.serving(store, options: LiveResultsOptions()) { routes in
            let reply = try await HTTP.send(.GET, "\(routes.base)/people?order=name")
            #expect(reply.text == #"[{"id":2,"name":"Ann"},{"id":1,"name":"Bo"}]"#)
            #expect(try await HTTP.send(.GET, "\(routes.base)/people?title=eq.x").code == "42703")
        }
    }
}
