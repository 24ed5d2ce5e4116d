import Foundation
import LiveResults
import NIOHTTP1
import Testing
import TodoServer

/// The REST writes of the server example and their errors (the *ServingLiveResults* article), sent to its router
/// (`RoutedServer`): their answers need no socket. The writes are the example's own routes, on Hummingbird only:
/// no adapter serves them, so they are not among the wire suite's cases.
@Suite("REST writes", .timeLimit(.minutes(5)))
struct RESTTests {
    @Test("POST, PATCH and DELETE answer 201, 200 and 204, and the results follow")
    func writes() async throws {
        try await RoutedServer.with(try await MemoryTodoStore()) { server in
            let created = try await server.send(
                .POST, "/todos", json: #"{"title": "Buy milk", "project": "Home", "priority": 2}"#)
            #expect(created.status == 201)
            let todo = try created.decode(Todo.self)
            #expect(todo.title == "Buy milk" && todo.project == "Home" && todo.priority == 2)
            let patched = try await server.send(.PATCH, "/todos/\(todo.id)", json: #"{"priority": 1}"#)
            #expect(patched.status == 200)
            #expect(try patched.decode(Todo.self) == Todo(id: todo.id, title: "Buy milk", project: "Home", priority: 1))
            #expect(Array(server.controller.fetchedObjects) == [try patched.decode(Todo.self)])
            #expect(try await server.send(.DELETE, "/todos/\(todo.id)").status == 204)
            #expect(server.controller.fetchedObjects.isEmpty)
        }
    }

    @Test(
        "bad bodies get 400 with PostgreSQL's or PostgREST's code and a message that names the mistake",
        arguments: [
            (#"{"title": "a", "project": "Home""#, "PGRST102", "Empty or invalid json"),
            (#"[1, 2]"#, "PGRST102", "All object keys must match"),
            (#"{"project": "Home", "priority": 1}"#, "23502", #"null value in column "title" of relation "todos""#),
            (#"{"title": 1, "project": "Home", "priority": 1}"#, "22P02", "invalid input syntax for type text: \"1\""),
            (#"{"title": "a", "project": null, "priority": 1}"#, "23502", #"null value in column "project""#),
            (
                #"{"title": "a", "project": "Home", "priority": "high"}"#, "22P02",
                "invalid input syntax for type integer"
            ),
            (#"{"title": "a", "project": "Home", "priority": 2.5}"#, "22P02", "invalid input syntax for type integer"),
            (#"{"title": "a", "project": "Home", "priority": true}"#, "22P02", "invalid input syntax for type integer"),
            (
                #"{"title": "a", "project": "Home", "priority": 3000000000}"#, "22003",
                #"value "3000000000" is out of range"#
            ),
            (
                #"{"title": "a", "project": "Home", "priority": 1, "owner": 2}"#, "PGRST204",
                "Could not find the 'owner'"
            ),
            ("", "PGRST102", "Empty or invalid json"),
        ])
    func badBodies(body: String, code: String, message: String) async throws {
        try await RoutedServer.with(try await MemoryTodoStore()) { server in
            let reply = try await server.send(.POST, "/todos", json: body)
            #expect(reply.status == 400)
            #expect(reply.code == code, "\(reply.text)")
            #expect(reply.error?.hasPrefix(message) == true, "\(reply.text)")
            #expect(server.controller.fetchedObjects.isEmpty, "nothing written")
        }
    }

    @Test("a PATCH with a wrong-typed field is 400 and changes nothing")
    func badPatch() async throws {
        try await RoutedServer.with(try await MemoryTodoStore()) { server in
            let todo = try await HTTP.create(server, title: "a", project: "Home", priority: 1)
            let reply = try await server.send(.PATCH, "/todos/\(todo.id)", json: #"{"title": "b", "priority": "x"}"#)
            #expect(reply.status == 400)
            #expect(Array(server.controller.fetchedObjects) == [todo])
        }
    }

    @Test("unknown ids and routes are 404 with a JSON error")
    func notFound() async throws {
        try await RoutedServer.with(try await MemoryTodoStore()) { server in
            let requests: [(HTTPMethod, String)] = [
                (.PATCH, "/todos/42"), (.DELETE, "/todos/42"), (.DELETE, "/todos/abc"), (.GET, "/nothing"),
                (.POST, "/todos/1/2"),
            ]
            for (method, path) in requests {
                let reply = try await server.send(method, path, json: #"{"title": "x"}"#)
                #expect(reply.status == 404, "\(method) \(path)")
                #expect(reply.error != nil, "\(method) \(path): \(reply.text)")
            }
        }
    }

    @Test("a body over 64 KiB is 413")
    func oversizedBody() async throws {
        try await RoutedServer.with(try await MemoryTodoStore()) { server in
            let title = String(repeating: "x", count: 70_000)
            let reply = try await server.send(
                .POST, "/todos", json: #"{"title": "\#(title)", "project": "Home", "priority": 1}"#)
            #expect(reply.status == 413)
            #expect(reply.error != nil)
            #expect(server.controller.fetchedObjects.isEmpty)
        }
    }
}
