import Foundation
import LiveResults
import LiveResultsTestSupport
import NIOHTTP1
import Testing
import TodoServer

/// The example's writes in PostgREST's form: inserts of one or several rows, updates and deletes by filter. They are
/// the example's own routes, on Hummingbird only: no adapter serves writes, so they are not among the wire suite's
/// cases.
@Suite("PostgREST's writes", .timeLimit(.minutes(5)))
struct PostgRESTWritesTests {
    private static func send(
        _ server: RunningServer, _ method: HTTPMethod, _ path: String, _ json: String? = nil,
        prefer: String? = nil
    ) async throws -> HTTP.Reply {
        try await HTTP.send(
            method, "\(server.base)/\(path)", body: json.map { Data($0.utf8) },
            headers: prefer.map { [("Prefer", $0)] } ?? [])
    }

    private static func json(_ reply: HTTP.Reply) throws -> Any {
        try JSONSerialization.jsonObject(with: reply.body)
    }

    @Test("POST: an object or an array; return=representation answers an array, minimal nothing, none what was sent")
    func inserts() async throws {
        try await RunningServer.with(try await MemoryTodoStore()) { server in
            let one = #"{"title":"a","project":"Home","priority":1}"#
            let represented = try await Self.send(server, .POST, "todos", one, prefer: "return=representation")
            #expect(represented.status == 201)
            #expect((try Self.json(represented) as? [[String: Any]])?.first?["title"] as? String == "a")
            let minimal = try await Self.send(server, .POST, "todos", one, prefer: "return=minimal")
            #expect(minimal.status == 201 && minimal.body.isEmpty)
            let plain = try await Self.send(server, .POST, "todos", one)
            #expect((try Self.json(plain) as? [String: Any])?["id"] as? Int == 3)
            let several = #"[{"title":"b","project":"Work","priority":2},{"title":"c","project":"Work","priority":3}]"#
            let batch = try await Self.send(
                server, .POST, "todos?columns=%22title%22,%22project%22,%22priority%22", several,
                prefer: "return=representation,count=exact")
            #expect(batch.status == 201)
            #expect((try Self.json(batch) as? [[String: Any]])?.map { $0["id"] as? Int } == [4, 5])
            #expect(batch.header("Content-Range") == "*/2")
            #expect(await eventually { server.controller.fetchedObjects.count == 5 })
        }
    }

    @Test("a batch insert is all or nothing")
    func atomicBatch() async throws {
        try await RunningServer.with(try await MemoryTodoStore()) { server in
            let bad = #"[{"title":"b","project":"Work","priority":2},{"title":"c","project":"Work","priority":"x"}]"#
            let refused = try await Self.send(server, .POST, "todos", bad)
            #expect(refused.status == 400 && refused.code == "22P02")
            let mismatched = #"[{"title":"b","project":"Work","priority":2},{"title":"c"}]"#
            let keys = try await Self.send(server, .POST, "todos", mismatched)
            #expect(keys.status == 400 && keys.code == "PGRST102" && keys.error == "All object keys must match")
            let fk =
                #"[{"title":"b","project":"Work","priority":2,"assignee_id":null},"#
                + #"{"title":"c","project":"Work","priority":2,"assignee_id":7}]"#
            let missingPerson = try await Self.send(server, .POST, "todos", fk)
            #expect(missingPerson.status == 409 && missingPerson.code == "23503")
            #expect(server.controller.fetchedObjects.isEmpty)
        }
    }

    @Test("PATCH and DELETE by filter change the rows the filters select; without a filter 400 21000")
    func updatesAndDeletes() async throws {
        try await RunningServer.with(try await MemoryTodoStore(LiveQueriesWireTests.todos)) { server in
            let patched = try await Self.send(
                server, .PATCH, "todos?project=eq.Home&priority=gte.2", #"{"priority":7}"#,
                prefer: "return=representation,count=exact")
            #expect(patched.status == 200)
            #expect((try Self.json(patched) as? [[String: Any]])?.map { $0["id"] as? Int } == [1, 5])
            #expect(patched.header("Content-Range") == "0-1/2")
            let quiet = try await Self.send(server, .PATCH, "todos?id=eq.3", #"{"title":"Rye"}"#)
            #expect(quiet.status == 204)
            let deleted = try await Self.send(
                server, .DELETE, "todos?project=eq.Work&select=id", prefer: "return=representation")
            #expect(deleted.status == 200 && deleted.text == #"[{"id":2},{"id":4}]"#)
            #expect(await eventually { server.controller.fetchedObjects.map(\.id) == [3, 1, 5] })
            for method in [HTTPMethod.PATCH, .DELETE] {
                let unfiltered = try await Self.send(server, method, "todos", #"{"priority":1}"#)
                #expect(unfiltered.status == 400 && unfiltered.code == "21000", "\(method)")
                let onlyOrder = try await Self.send(server, method, "todos?order=id", #"{"priority":1}"#)
                #expect(onlyOrder.code == "21000", "\(method)")
            }
            #expect(
                try await Self.send(server, .PATCH, "todos?id=eq.1", #"{"nope":1}"#).code == "PGRST204")
            #expect(try await Self.send(server, .DELETE, "todos?nope=eq.1").code == "42703")
        }
    }

    @Test("/people writes, and deleting a person unassigns their to-dos")
    func people() async throws {
        try await RunningServer.with(try await MemoryTodoStore()) { server in
            let person = try await Self.send(server, .POST, "people", #"{"name":"Ann"}"#)
            #expect(person.status == 201 && person.text == #"{"id":1,"name":"Ann"}"#)
            let todo = try await Self.send(
                server, .POST, "todos", #"{"title":"a","project":"Home","priority":1,"assignee_id":1}"#)
            #expect(todo.status == 201)
            #expect(
                try await Self.send(server, .PATCH, "people/1", #"{"name":"Anne"}"#).text == #"{"id":1,"name":"Anne"}"#)
            #expect(try await Self.send(server, .DELETE, "people?name=eq.Anne").status == 204)
            #expect(await eventually { server.controller.fetchedObjects.first?.assigneeID == nil })
            #expect(try await Self.send(server, .DELETE, "people/1").status == 404)
        }
    }

    @Test("Content-Profile: public is accepted, another schema is 406 PGRST106")
    func profiles() async throws {
        try await RunningServer.with(try await MemoryTodoStore()) { server in
            let body = Data(#"{"title":"a","project":"Home","priority":1}"#.utf8)
            let ok = try await HTTP.send(
                .POST, "\(server.base)/todos", body: body, headers: [("Content-Profile", "public")])
            #expect(ok.status == 201)
            let other = try await HTTP.send(
                .POST, "\(server.base)/todos", body: body, headers: [("Content-Profile", "api")])
            #expect(other.status == 406 && other.code == "PGRST106")
        }
    }
}
