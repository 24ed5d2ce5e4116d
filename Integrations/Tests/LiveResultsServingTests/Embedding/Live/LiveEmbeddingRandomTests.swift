import Foundation
import LiveResults
import LiveResultsServing
import LiveResultsTestSupport
import LiveResultsTesting
import Testing

/// Seeded random batches of writes to people and to-dos, followed by live embeddings of several requests (both
/// directions, `!inner`, children's order, filters and windows, two levels, spreads): after each batch, each window
/// equals the objects embedded from scratch, and every change set it delivered keeps the contract.
@Suite("Live embedding, random writes against a reference")
struct LiveEmbeddingRandomTests {
    typealias Person = Assignments.Person
    typealias Todo = Assignments.Todo

    static let names = ["Ann", "Bo", "Cy", "Di"]

    static let todoRequests: [[(String, String)]] = [
        [
            ("select", "id,title,priority,assignee:people(id,name)"), ("order", "priority.desc"), ("limit", "8"),
            ("offset", "2"),
        ],
        [
            ("select", "id,assignee:people!inner(name)"), ("assignee.name", "eq.Ann"), ("order", "priority.asc"),
            ("limit", "6"),
        ],
        [("select", "id,priority,assignee:people(name,todos(id,priority))"), ("order", "id.desc"), ("limit", "10")],
        [("select", "id,priority,...people!inner(assignee:name)"), ("people.name", "neq.Bo"), ("order", "id.asc")],
        [("select", "id,people()"), ("people.name", "eq.Cy"), ("people", "is.null"), ("order", "priority.desc")],
    ]

    static let peopleRequests: [[(String, String)]] = [
        [
            ("select", "id,name,todos(id,priority)"), ("order", "name.asc"), ("todos.order", "priority.desc"),
            ("todos.limit", "2"), ("todos.priority", "gte.1"), ("limit", "4"),
        ],
        [
            ("select", "name,todos!inner(id,assignee:people(name))"), ("todos.priority", "gte.3"),
            ("order", "id.asc"),
        ],
        [("select", "name,...todos(ids:id,priority)"), ("todos.order", "id.asc"), ("order", "name.asc")],
        [("select", "id,name,todos(id)"), ("todos.priority", "gte.4"), ("todos", "not.is.null"), ("order", "id.asc")],
    ]

    /// A followed request: its window, its recorder, and whether the window equals the reference now.
    struct Followed {
        let verify: () throws -> Void
        let matches: () async throws -> Bool
        let holding: any Sendable
    }

    /// Follows the request's window: of an embedding of its own, or of one of `route`'s embeddings, which
    /// share their related tables' subscriptions.
    static func follow<Source: QueryableSource>(
        _ parameters: [(String, String)], table: String, source: Source, rows: @escaping () -> [Source.Entity],
        relations: LiveRelations, route: _LiveEmbeddings<Source>?
    ) async throws -> Followed where Source.Entity: Codable {
        let embedding: LiveEmbedding<Source>
        let range: WindowRange
        // A route's embedding stays while held.
        var held: _LiveEmbeddings<Source>.Hold?
        if let route {
            let asked = try Assignments.request(parameters, table: table, as: Source.Entity.self, relations: relations)
            held = try await route.embedding(of: asked.select, in: asked.query)
            (embedding, range) = (held!.embedding, asked.window)
        } else {
            (embedding, range) = try await LiveEmbeddingTests.embedding(
                parameters, table: table, source: source, relations: relations)
        }
        let window = embedding.controller.window(range)
        let recorder = ChangeRecorder(window)
        return Followed(
            verify: { try recorder.verifyChain() },
            matches: {
                let expected = try await LiveEmbeddingTests.expected(
                    parameters, table: table, rows: rows(), as: Source.self, relations: relations)
                return LiveEmbeddingTests.objects(of: window) == expected
            }, holding: (embedding, window, held))
    }

    /// Each seed twice: embeddings of their own, and a route's embeddings (one subscription per related table).
    @Test(arguments: 0..<6, [false, true])
    func windowsEqualTheEmbeddingFromScratchAfterEveryBatch(seed: UInt64, shared: Bool) async throws {
        var random = SeededRandom(seed: seed)
        let people = (1...5).map { Person(id: Int64($0), name: Self.names.randomElement(using: &random)!) }
        let todos = (1...30).map { id in
            Todo(
                id: Int64(id), title: "t\(id)", priority: Int.random(in: 0..<5, using: &random),
                assignee_id: Bool.random(using: &random) ? nil : Int64.random(in: 1...6, using: &random))
        }
        let data = Assignments(people: people, todos: todos)
        let relations = data.relations
        func route<Source: QueryableSource>(_ source: Source, _ table: String) -> _LiveEmbeddings<Source>? {
            let route = _LiveQueryRoute(
                path: table, filters: [], orders: [], defaultOrder: [], sections: [], maximumLimit: 500,
                relations: relations, respondsItself: { _ in false })
            return shared ? _LiveEmbeddings(registry: LiveQueryRegistry(source: source), route: route) : nil
        }
        let (todoRoute, peopleRoute) = (route(data.todos, "todos"), route(data.people, "people"))
        var followed: [Followed] = []
        for request in Self.todoRequests {
            followed.append(
                try await Self.follow(
                    request, table: "todos", source: data.todos, rows: { data.todos.all }, relations: relations,
                    route: todoRoute))
        }
        for request in Self.peopleRequests {
            followed.append(
                try await Self.follow(
                    request, table: "people", source: data.people, rows: { data.people.all }, relations: relations,
                    route: peopleRoute))
        }
        var nextTodo: Int64 = 31
        var nextPerson: Int64 = 6
        for batch in 0..<30 {
            if Bool.random(using: &random) {
                var written: [Person] = []
                for _ in 0..<Int.random(in: 1...2, using: &random) {
                    let id =
                        Int.random(in: 0..<5, using: &random) == 0
                        ? nextPerson : data.people.all.randomElement(using: &random)!.id
                    if id == nextPerson { nextPerson += 1 }
                    written.append(Person(id: id, name: Self.names.randomElement(using: &random)!))
                }
                data.people.write(written)
            } else {
                var written: [Todo] = []
                var deleted: [Int64] = []
                for _ in 0..<Int.random(in: 1...3, using: &random) {
                    let assignee = Bool.random(using: &random) ? nil : Int64.random(in: 1..<nextPerson, using: &random)
                    let priority = Int.random(in: 0..<5, using: &random)
                    switch Int.random(in: 0..<3, using: &random) {
                    case 0:
                        written.append(
                            Todo(id: nextTodo, title: "t\(nextTodo)", priority: priority, assignee_id: assignee))
                        nextTodo += 1
                    case 1:
                        guard var todo = data.todos.all.randomElement(using: &random) else { continue }
                        if Bool.random(using: &random) { todo.priority = priority } else { todo.assignee_id = assignee }
                        written.append(todo)
                    default:
                        guard let todo = data.todos.all.randomElement(using: &random) else { continue }
                        deleted.append(todo.id)
                    }
                }
                data.todos.write(written, deleting: deleted.filter { id in !written.contains { $0.id == id } })
            }
            for (index, request) in followed.enumerated() {
                let converged = await eventually(timeout: .seconds(5)) { (try? await request.matches()) == true }
                #expect(converged, "seed \(seed), shared \(shared), batch \(batch), request \(index)")
                guard converged else { return }
            }
        }
        for request in followed { try request.verify() }
    }
}
