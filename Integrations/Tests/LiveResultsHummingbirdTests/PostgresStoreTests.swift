import Foundation
import LiveResults
import LiveResultsPostgres
import LiveResultsTestSupport
import PostgresNIO
import Testing
import TodoServer

/// The server example's PostgreSQL store: its schema, its upgrade, and one change feed for both tables.
@Suite("The server example's PostgreSQL store", .timeLimit(.minutes(3)))
struct PostgresStoreTests {
    @Test("a database of the previous version is upgraded at start, its rows kept; both tables follow one feed")
    func upgradeAndOneFeed() async throws {
        let postgres = try PostgresTestServer.shared()
        try await postgres.withDatabase { client, _ in
            try await client.query(
                """
                CREATE TABLE todos (id bigserial PRIMARY KEY, title text NOT NULL, project text NOT NULL, \
                priority int NOT NULL)
                """)
            try await client.query("INSERT INTO todos (title, project, priority) VALUES ('old', 'Home', 1)")
            let store = try await PostgresTodoStore(client: client, changes: .walSQL)
            let (todos, followed) = try await store.followTodos()
            defer { followed.cancel() }
            #expect(Array(todos.fetchedObjects) == [Todo(id: 1, title: "old", project: "Home", priority: 1)])
            let published = try await client.query(
                "SELECT tablename::text FROM pg_publication_tables WHERE pubname = 'liveresults_todos' ORDER BY 1"
            ).collect().map { try $0.decode(String.self) }
            #expect(published == ["people", "todos"])

            // The people's live source follows the same feed as the to-dos'.
            let people = FetchedResultsController(
                definition: store.people.fetchDefinition(), sortDescriptors: [SortDescriptor(\Person.id)])
            let subscription = people.observe(store.people)
            try await people.performFetch()
            try await client.query("INSERT INTO people (name) VALUES ('from SQL')")
            let ann = try #require(try await store.insert([PersonInput(name: "Ann")]).first)
            #expect(await eventually { people.fetchedObjects.map(\.name) == ["from SQL", "Ann"] })
            let assigned = try await store.update(
                try LiveQuery<Todo>(filters: [.equal("id", 1)]), with: TodoInput(assigneeID: .some(ann.id)))
            #expect(assigned.map(\.assigneeID) == [ann.id])
            #expect(await eventually { todos.fetchedObjects.first?.assigneeID == ann.id })
            // on delete set null: the to-do is unassigned, and the feed delivers it.
            #expect(
                try await store.delete(try LiveQuery<Person>(filters: [.equal("id", ann.id)])).map(\.id) == [ann.id])
            #expect(await eventually { todos.fetchedObjects.first?.assigneeID == nil })
            #expect(await eventually { people.fetchedObjects.map(\.name) == ["from SQL"] })
            let slots = try await client.query(
                "SELECT count(*)::int FROM pg_replication_slots WHERE database = current_database()"
            ).collect().first?.decode(Int.self)
            #expect(slots == 1, "one slot for both tables")
            subscription.cancel()
        }
    }

    @Test("a batch insert is all or nothing; an update or a delete needs a filter")
    func transactions() async throws {
        let postgres = try PostgresTestServer.shared()
        try await postgres.withDatabase { client, _ in
            let store = try await PostgresTodoStore(client: client)
            await #expect(throws: TodoServerError.self) {
                try await store.insert([
                    TodoInput(title: "a", project: "Home", priority: 1),
                    TodoInput(title: "b", project: "Home", priority: 1, assigneeID: .some(42)),
                ])
            }
            let count = try await client.query("SELECT count(*)::int FROM todos").collect().first?.decode(Int.self)
            #expect(count == 0)
            await #expect(throws: TodoServerError.self) {
                try await store.update(try LiveQuery<Todo>(), with: TodoInput(priority: 1))
            }
            await #expect(throws: TodoServerError.self) { try await store.delete(try LiveQuery<Todo>()) }
        }
    }
}
