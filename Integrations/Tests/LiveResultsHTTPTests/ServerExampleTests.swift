import Foundation
import LiveResults
import LiveResultsHTTP
import LiveResultsHummingbird
import LiveResultsTestSupport
import NIOConcurrencyHelpers
import Testing
import TodoServer

/// The server example as the peer, on loopback: fetches, mutations, and `RemoteResults` following it.
@Suite("The server example as the peer", .timeLimit(.minutes(3)))
struct ServerExampleTests {
    @Test("a fetch definition from GET /todos shows the server's to-dos", arguments: TransportKind.allCases)
    func fetch(transport: TransportKind) async throws {
        let store = try await MemoryTodoStore([
            Todo(id: 1, title: "Milk", project: "Home", priority: 2),
            Todo(id: 2, title: "Report", project: "Work", priority: 1),
        ])
        try await HTTPTestServer.serving(try TodoRoutes.router(store).router) { port in
            let client = transport.client("http://127.0.0.1:\(port)")
            let controller = Todo.controller(
                FetchDefinition(client: client, request: ListTodos()) { $0.results?.wholeResults })
            try await controller.performFetch()
            #expect(Array(controller.fetchedObjects) == Array(store.controller.fetchedObjects))
            #expect(controller.sections.map(\.name) == ["Home", "Work"])
        }
    }

    @Test("a mutation round trip: optimistic insert, POST, invalidation; a 404 rolls back")
    func mutationRoundTrip() async throws {
        let store = try await MemoryTodoStore()
        try await HTTPTestServer.serving(try TodoRoutes.router(store).router) { port in
            let client = TransportKind.asyncHTTPClient.client("http://127.0.0.1:\(port)")
            let registry = ResultsRegistry()
            let todos = try await registry.fetchedController(for: ["todos"]) {
                Todo.controller(FetchDefinition(client: client, request: ListTodos()) { $0.results?.wholeResults })
            }
            #expect(todos.fetchedObjects.isEmpty)

            let create = Mutation(
                controller: todos, client: client,
                optimistic: { (fields: TodoFields) in
                    [.inserted(Todo(id: -1, title: fields.title ?? "", project: fields.project ?? "", priority: 0))]
                }, invalidating: [["todos"]], in: registry
            ) { fields in
                CreateTodo(title: fields.title ?? "", project: fields.project ?? "", priority: fields.priority ?? 0)
            }
            let response = try await create.run(TodoFields(title: "Milk", project: "Home", priority: 3))
            #expect(response.status == 201)
            let created = try #require(response.todo)
            #expect(created.title == "Milk")
            #expect(Array(todos.fetchedObjects) == [created], "the optimistic row is replaced by the refetch")
            #expect(Array(store.controller.fetchedObjects) == [created])

            let rename = Mutation(
                controller: todos, client: client, optimistic: { (todo: Todo) in [.updated(todo)] },
                invalidating: [["todos"]], in: registry
            ) { todo in UpdateTodo(id: todo.id, TodoFields(title: todo.title)) }
            var edited = created
            edited.title = "Oat milk"
            try await rename.run(edited)
            #expect(todos.fetchedObjects.first?.title == "Oat milk")
            #expect(store.controller.fetchedObjects.first?.title == "Oat milk")

            let missing = Todo(id: 999, title: "Ghost", project: "Home", priority: 1)
            let body =
                #"{"code":"PGRST116","message":"no row 999 in todos","details":"The result contains 0 rows","hint":null}"#
            await #expect(throws: HTTPAPIError.unacceptableStatus(404, body: body)) {
                try await rename.run(missing)
            }
            #expect(Array(todos.fetchedObjects.map(\.title)) == ["Oat milk"], "rolled back")

            let delete = Mutation<Todo, Int64, EmptyResponse>(
                controller: todos, client: client, optimistic: { _ in [] }, invalidating: [["todos"]], in: registry
            ) { DeleteTodo(id: $0) }
            try await delete.run(created.id)
            #expect(todos.fetchedObjects.isEmpty)
            #expect(store.controller.fetchedObjects.isEmpty)
        }
    }

    @Test("RemoteResults follows the server while writes happen through REST", arguments: TransportKind.allCases)
    func remoteFollowsWrites(transport: TransportKind) async throws {
        let store = try await MemoryTodoStore()
        try await HTTPTestServer.serving(try TodoRoutes.router(store).router) { port in
            let client = transport.client("http://127.0.0.1:\(port)")
            let remote = RemoteResults<Todo>(client: client, path: "todos/events?sections=project")
            let changes = ContractChecker(observing: remote.observeChanges)
            remote.start()
            #expect(
                await eventually {
                    remote.state.isConnected && Array(remote.fetchedObjects) == Array(store.controller.fetchedObjects)
                })
            var ids: [Int64] = []
            for step in 0..<30 {
                switch step % 3 {
                case 0, 1:
                    let response = try await client.send(
                        CreateTodo(title: "t\(step)", project: step % 2 == 0 ? "Home" : "Work", priority: step % 4),
                        requiringSuccess: true)
                    ids.append(try #require(response.todo).id)
                default:
                    let id = ids.removeFirst()
                    if step % 2 == 0 {
                        try await client.send(DeleteTodo(id: id))
                    } else {
                        try await client.send(UpdateTodo(id: id, TodoFields(priority: 9)), requiringSuccess: true)
                    }
                }
            }
            #expect(await eventually { Array(remote.fetchedObjects) == Array(store.controller.fetchedObjects) })
            #expect(Array(remote.fetchedObjects) == Array(store.controller.fetchedObjects))
            #expect(remote.sections.map(\.name) == store.controller.sections.map(\.name))
            // The results change under the lock and their observers are told after it, so the last change set
            // can arrive a moment after the results show it.
            #expect(await eventually { changes.latest == Array(remote.fetchedObjects) }, "the change sets rebuild")
            #expect(changes.violations.isEmpty, "\(changes.violations)")
            remote.stop()
            #expect(await eventually { if case .stopped = remote.state { true } else { false } })
        }
    }

    @Test("a server restart in the middle: RemoteResults reconnects and catches up with one change set")
    func serverRestart() async throws {
        let first = try await MemoryTodoStore([
            Todo(id: 1, title: "Milk", project: "Home", priority: 2),
            Todo(id: 2, title: "Report", project: "Work", priority: 1),
        ])
        let diagnostics = NIOLockedValueBox<[String]>([])
        let box = NIOLockedValueBox<RemoteResults<Todo>?>(nil)
        let port = try await HTTPTestServer.serving(try TodoRoutes.router(first).router) { port in
            let remote = RemoteResults<Todo>(
                client: TransportKind.asyncHTTPClient.client("http://127.0.0.1:\(port)"),
                path: "todos/events?sections=project",
                backoff: Backoff(initialDelay: .milliseconds(50), maximumDelay: .milliseconds(200))
            ) { diagnostic in diagnostics.withLockedValue { $0.append("\(diagnostic)") } }
            box.withLockedValue { $0 = remote }
            remote.start()
            #expect(await eventually { Array(remote.fetchedObjects) == Array(first.controller.fetchedObjects) })
            return port
        }
        let remote = try #require(box.withLockedValue { $0 })
        let changes = ContractChecker(observing: remote.observeChanges)
        #expect(
            await eventually { if case .reconnecting = remote.state { true } else { false } },
            "the stream ended with the server: reconnecting")

        let second = try await MemoryTodoStore([
            Todo(id: 1, title: "Oat milk", project: "Home", priority: 2),
            Todo(id: 3, title: "Plan", project: "Work", priority: 0),
            Todo(id: 4, title: "Call", project: "Errands", priority: 1),
        ])
        try await HTTPTestServer.serving(try TodoRoutes.router(second).router, port: port) { _ in
            #expect(await eventually { Array(remote.fetchedObjects) == Array(second.controller.fetchedObjects) })
            #expect(Array(remote.fetchedObjects) == Array(second.controller.fetchedObjects))
            // The results change under the lock; their observers are told after it (a delivery behind, under
            // ThreadSanitizer's slowness).
            #expect(await eventually { !changes.changeSets.isEmpty })
            #expect(changes.changeSets.count == 1, "one change set for everything missed")
            #expect(changes.violations.isEmpty, "\(changes.violations)")
            #expect(changes.latest == Array(second.controller.fetchedObjects))
            #expect(remote.state.isConnected)
            remote.stop()
        }
        #expect(diagnostics.withLockedValue { $0 }.contains { $0.hasPrefix("disconnected") })
    }
}
