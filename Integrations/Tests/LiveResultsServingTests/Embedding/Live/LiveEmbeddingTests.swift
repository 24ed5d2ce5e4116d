import Foundation
import LiveResults
import LiveResultsServing
import LiveResultsTestSupport
import LiveResultsTesting
import Testing

/// `LiveEmbedding`: a query's rows with their embedded rows, kept live. Each test's windows are compared with
/// the objects embedded from scratch (as `GET` answers them), and their change sets with the contract.
@Suite("Live embedding")
struct LiveEmbeddingTests {
    typealias Person = Assignments.Person
    typealias Todo = Assignments.Todo

    /// Ann (1), Bo (2) and Cy (3); to-dos 1…12 of priority = id: Ann has 3, 9 and 11, Bo 10 and 12, Cy the rest.
    static func assignments() -> Assignments {
        let owners: [Int64: Int64] = [3: 1, 9: 1, 11: 1, 10: 2, 12: 2]
        return Assignments(
            people: [Person(id: 1, name: "Ann"), Person(id: 2, name: "Bo"), Person(id: 3, name: "Cy")],
            todos: (1...12).map { Todo(id: $0, title: "t\($0)", priority: Int($0), assignee_id: owners[$0] ?? 3) })
    }

    /// A live embedding of the request's query, fetched.
    static func embedding<Source: QueryableSource>(
        _ parameters: [(String, String)], table: String, source: Source, relations: LiveRelations
    ) async throws -> (embedding: LiveEmbedding<Source>, window: WindowRange) where Source.Entity: Codable {
        let asked = try Assignments.request(parameters, table: table, as: Source.Entity.self, relations: relations)
        let embedding = try LiveEmbedding(
            query: asked.query, select: asked.select, table: table, source: source, relations: relations)
        try await embedding.fetch()
        return (embedding, asked.window)
    }

    /// The objects `GET` answers for the request now: every row embedded from scratch, those `!inner` leaves out
    /// dropped, then the window.
    static func expected<Source: QueryableSource>(
        _ parameters: [(String, String)], table: String, rows: [Source.Entity], as source: Source.Type,
        relations: LiveRelations
    ) async throws -> [String] where Source.Entity: Codable {
        let asked = try Assignments.request(parameters, table: table, as: Source.Entity.self, relations: relations)
        let parents = rows.filter(asked.query.isIncluded).sorted(using: asked.query.sortDescriptors)
        let objects = try await relations.objects(of: parents, select: asked.select, table: table).compactMap(\.self)
        let positions = asked.window.positions(count: objects.count)
        return objects[positions].map { String(decoding: $0, as: UTF8.self) }
    }

    static func objects<Parent>(of window: LiveWindow<EmbeddedRow<Parent>>) -> [String] {
        window.fetchedObjects.map { String(decoding: $0.object ?? Data(), as: UTF8.self) }
    }

    @Test func aRenameUpdatesExactlyTheParentsShowingThePersonInOneChangeSet() async throws {
        let data = Self.assignments()
        let parameters = [("select", "id,title,assignee:people(id,name)"), ("order", "priority.desc")]
        let (embedding, _) = try await Self.embedding(
            parameters, table: "todos", source: data.todos, relations: data.relations)
        let top = embedding.controller.window(.first(4))  // 12, 11 (Ann), 10, 9 (Ann)
        let middle = embedding.controller.window(.range(offset: 4, limit: 3))  // 8, 7, 6: Cy's
        let (topChanges, middleChanges) = (ChangeRecorder(top), ChangeRecorder(middle))
        let (peopleReads, todoReads) = (data.people.fetches, data.todos.fetches)

        data.people.write([Person(id: 1, name: "Ann B.")])

        #expect(await eventually(timeout: .seconds(5)) { topChanges.changeSets.count == 1 })
        let changes = try #require(topChanges.changeSets.first)
        #expect(changes.updatedItems == [IndexPath(item: 1, section: 0), IndexPath(item: 3, section: 0)])
        #expect(changes.insertedItems.isEmpty && changes.deletedItems.isEmpty && changes.movedItems.isEmpty)
        #expect(Self.objects(of: top)[1] == #"{"id":11,"title":"t11","assignee":{"id":1,"name":"Ann B."}}"#)
        #expect(middleChanges.changeSets.isEmpty)
        #expect(data.people.fetches == peopleReads + 1, "one read of the people, for the parents that show Ann")
        #expect(data.todos.fetches == todoReads, "no read of the query")
        try topChanges.verifyChain()
    }

    @Test func aPersonNoParentShowsChangesNothing() async throws {
        let data = Self.assignments()
        data.people.write([Person(id: 4, name: "Di")])
        let parameters = [("select", "id,assignee:people(name)"), ("order", "id.asc")]
        let (embedding, _) = try await Self.embedding(
            parameters, table: "todos", source: data.todos, relations: data.relations)
        let todos = embedding.controller.window(.first(20))
        let changes = ChangeRecorder(todos)
        let reads = data.people.fetches

        data.people.write([Person(id: 4, name: "Dee")])
        data.people.write([Person(id: 1, name: "Ann B.")])  // then one that shows: the first is done by then

        #expect(await eventually(timeout: .seconds(5)) { changes.changeSets.count == 1 })
        #expect(changes.changeSets.first?.updatedItems.count == 3)
        #expect(data.people.fetches == reads + 1, "Dee's rename reads nothing")
        #expect(todos.totalCount == 12)
    }

    @Test func aChildsChangesUpdateItsParentsArrayInItsOwnOrderAndWindow() async throws {
        let data = Self.assignments()
        let parameters = [
            ("select", "id,name,todos(id,priority)"), ("order", "name.asc"), ("todos.order", "priority.desc"),
            ("todos.limit", "2"),
        ]
        let (embedding, window) = try await Self.embedding(
            parameters, table: "people", source: data.people, relations: data.relations)
        let people = embedding.controller.window(window)
        let changes = ChangeRecorder(people)
        #expect(
            Self.objects(of: people)[0]
                == #"{"id":1,"name":"Ann","todos":[{"id":11,"priority":11},{"id":9,"priority":9}]}"#)

        data.todos.write([Todo(id: 13, title: "t13", priority: 10, assignee_id: 1)])
        #expect(await eventually(timeout: .seconds(5)) { changes.changeSets.count == 1 })
        #expect(changes.changeSets.last?.updatedItems == [IndexPath(item: 0, section: 0)])
        #expect(changes.changeSets.last?.movedItems.isEmpty == true)
        #expect(
            Self.objects(of: people)[0]
                == #"{"id":1,"name":"Ann","todos":[{"id":11,"priority":11},{"id":13,"priority":10}]}"#)

        data.todos.write(deleting: [11])
        #expect(await eventually(timeout: .seconds(5)) { changes.changeSets.count == 2 })
        #expect(
            Self.objects(of: people)[0]
                == #"{"id":1,"name":"Ann","todos":[{"id":13,"priority":10},{"id":9,"priority":9}]}"#)

        data.todos.write([Todo(id: 13, title: "t13", priority: 11, assignee_id: 2)])  // from Ann to Bo: both change
        #expect(await eventually(timeout: .seconds(5)) { changes.changeSets.count == 3 })
        #expect(
            changes.changeSets.last?.updatedItems == [IndexPath(item: 0, section: 0), IndexPath(item: 1, section: 0)])
        #expect(
            try await Self.objects(of: people)
                == Self.expected(
                    parameters, table: "people", rows: data.people.all, as: MemoryTable<Person>.self,
                    relations: data.relations))
        try changes.verifyChain()
    }

    @Test func withInnerParentsEnterAndLeaveAsTheirRelatedRowsChange() async throws {
        let data = Self.assignments()
        let parameters = [
            ("select", "id,assignee:people!inner(name)"), ("assignee.name", "eq.Ann"), ("order", "id.asc"),
        ]
        let (embedding, window) = try await Self.embedding(
            parameters, table: "todos", source: data.todos, relations: data.relations)
        let todos = embedding.controller.window(window)
        let changes = ChangeRecorder(todos)
        #expect(todos.fetchedObjects.map(\.parent.id) == [3, 9, 11])

        data.todos.write([Todo(id: 5, title: "t5", priority: 5, assignee_id: 1)])
        #expect(await eventually(timeout: .seconds(5)) { changes.changeSets.count == 1 })
        #expect(changes.changeSets.last?.insertedItems == [IndexPath(item: 1, section: 0)])

        data.people.write([Person(id: 1, name: "Zed")])
        #expect(await eventually(timeout: .seconds(5)) { changes.changeSets.count == 2 })
        #expect(changes.changeSets.last?.deletedItems.count == 4)
        #expect(todos.fetchedObjects.isEmpty)

        data.people.write([Person(id: 2, name: "Ann")])  // Bo takes the name: Bo's to-dos enter
        #expect(await eventually(timeout: .seconds(5)) { changes.changeSets.count == 3 })
        #expect(todos.fetchedObjects.map(\.parent.id) == [10, 12])
        try changes.verifyChain()
    }

    @Test func twoLevelsFollowTheQuerysOwnTableInOneChangeSet() async throws {
        let data = Self.assignments()
        let parameters = [("select", "id,assignee:people(name,todos(id))"), ("order", "id.asc")]
        let (embedding, window) = try await Self.embedding(
            parameters, table: "todos", source: data.todos, relations: data.relations)
        let todos = embedding.controller.window(window)
        let changes = ChangeRecorder(todos)

        data.todos.write([Todo(id: 13, title: "t13", priority: 13, assignee_id: 2)])  // Bo's third
        #expect(await eventually(timeout: .seconds(5)) { changes.changeSets.count == 1 })
        let inserted = try #require(changes.changeSets.first)
        #expect(inserted.insertedItems == [IndexPath(item: 12, section: 0)])
        #expect(inserted.updatedItems == [IndexPath(item: 9, section: 0), IndexPath(item: 11, section: 0)])
        #expect(
            Self.objects(of: todos)[9] == #"{"id":10,"assignee":{"name":"Bo","todos":[{"id":10},{"id":12},{"id":13}]}}"#
        )
        #expect(
            try await Self.objects(of: todos)
                == Self.expected(
                    parameters, table: "todos", rows: data.todos.all, as: MemoryTable<Todo>.self,
                    relations: data.relations))
        try changes.verifyChain()
    }
}
