import Foundation
import LiveResults
import NIOHTTP1
import Testing
import TodoServer

/// The REST writes of the server example and their errors (the *ServingLiveResults* article), sent to its router
/// (`RoutedServer`): their answers need no socket.
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
        "bad bodies get 400 with an error that names the mistake",
        arguments: [
            (#"{"title": "a", "project": "Home""#, "the body is not JSON"),
            (#"[1, 2]"#, "the body must be a JSON object"),
            (#"{"project": "Home", "priority": 1}"#, #"missing field "title""#),
            (#"{"title": 1, "project": "Home", "priority": 1}"#, #"field "title" must be a string"#),
            (#"{"title": "a", "project": null, "priority": 1}"#, #"field "project" must be a string"#),
            (#"{"title": "a", "project": "Home", "priority": "high"}"#, #"field "priority" must be an integer"#),
            (#"{"title": "a", "project": "Home", "priority": 2.5}"#, #"field "priority" must be an integer"#),
            (#"{"title": "a", "project": "Home", "priority": true}"#, #"field "priority" must be an integer"#),
            (#"{"title": "a", "project": "Home", "priority": 3000000000}"#, #"field "priority" must be an integer"#),
            ("", "the body is not JSON"),
        ])
    func badBodies(body: String, error: String) async throws {
        try await RoutedServer.with(try await MemoryTodoStore()) { server in
            let reply = try await server.send(.POST, "/todos", json: body)
            #expect(reply.status == 400)
            #expect(reply.error?.hasPrefix(error) == true, "\(reply.text)")
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
