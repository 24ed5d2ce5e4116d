import Fluent
import Foundation
import HTTPTypes
import LiveResultsTestSupport
import Logging
import PostgresNIO
import Testing
import TodoApp
import TodoVaporServer
import Vapor

/// The Vapor example's PostgreSQL side: Fluent's migrations on an empty database and on one an earlier server
/// made, and writes through Fluent's models answered as the SQL store answers them.
@Suite("The Vapor example's Fluent store", .serialized, .timeLimit(.minutes(3)))
struct FluentTodoStoreTests {
    @Test("the migrations upgrade a database of the first server (no Fluent log, todos without assignee_id), rows kept")
    func upgrade() async throws {
        let postgres = try PostgresTestServer.shared()
        try await postgres.withDatabase { client, configuration in
            try await client.query(
                """
                CREATE TABLE todos (id bigserial PRIMARY KEY, title text NOT NULL, project text NOT NULL, \
                priority int NOT NULL)
                """)
            try await client.query("INSERT INTO todos (title, project, priority) VALUES ('old', 'Home', 1)")
            // Twice: the second run finds Fluent's log, and changes nothing.
            for _ in 0..<2 { try await Self.migrate(postgres.url(database: configuration.database)) }
            let columns = try await client.query(
                """
                SELECT column_name::text FROM information_schema.columns WHERE table_name = 'todos' \
                ORDER BY ordinal_position
                """
            ).collect().map { try $0.decode(String.self) }
            #expect(columns == ["id", "title", "project", "priority", "assignee_id"])
            let rows = try await client.query("SELECT title FROM todos").collect().map { try $0.decode(String.self) }
            #expect(rows == ["old"])
            try await client.query("INSERT INTO people (name) VALUES ('Ann')")
            try await client.query("UPDATE todos SET assignee_id = 1")
            try await client.query("DELETE FROM people")
            let assignees = try await client.query("SELECT assignee_id FROM todos").collect()
                .map { try $0.decode(Int64?.self) }
            #expect(assignees == [nil], "on delete set null")
        }
    }

    @Test("the migrations keep a database the Hummingbird server made, and make the same columns on an empty one")
    func sameSchema() async throws {
        let postgres = try PostgresTestServer.shared()
        let schemas = try await [true, false].asyncMap { fromHummingbird in
            try await postgres.withDatabase { client, configuration in
                let url = postgres.url(database: configuration.database)
                if fromHummingbird { _ = try await PostgresTodoStore(client: client) }
                try await Self.migrate(url)
                return try await client.query(
                    """
                    SELECT table_name::text || '.' || column_name::text || ' ' || data_type::text || ' ' \
                    || is_nullable::text FROM information_schema.columns \
                    WHERE table_name IN ('todos', 'people') ORDER BY table_name, ordinal_position
                    """
                ).collect().map { try $0.decode(String.self) }
            }
        }
        #expect(schemas[0] == schemas[1])
        #expect(schemas[0].contains("todos.priority integer NO"))
        #expect(schemas[0].contains("todos.assignee_id bigint YES"))
    }

    @Test("writes through Fluent's models get the answers and errors the SQL store gives")
    func sameAnswers() async throws {
        let postgres = try PostgresTestServer.shared()
        let answers = try await [false, true].asyncMap { fluent in
            try await postgres.withDatabase { _, configuration in
                var todo = TodoConfiguration(postgresURL: postgres.url(database: configuration.database))
                todo.queryTimeout = .seconds(10)
                return try await Self.withStore(todo, fluent: fluent) { store in
                    var answers: [String] = []
                    for (method, id, query, body) in Self.writes {
                        answers.append(await Self.answer(store, method, id: id, query: query, body: body))
                    }
                    return answers
                }
            }
        }
        #expect(answers[0].count == Self.writes.count)
        for (step, (sql, fluent)) in zip(answers[0], answers[1]).enumerated() {
            #expect(sql == fluent, "step \(step): \(Self.writes[step])")
        }
        #expect(answers[1][2].hasPrefix("409 "), "\(answers[1][2])")
    }

    /// The writes both stores answer: people, to-dos, a foreign key refused, filtered updates and deletes.
    static let writes: [(HTTPRequest.Method, String?, String?, String)] = [
        (.post, nil, nil, #"[{"name": "Ann"}, {"name": "Bob"}]"#),
        (.post, nil, nil, #"{"title": "a", "project": "Home", "priority": 1, "assignee_id": 1}"#),
        (.post, nil, nil, #"{"title": "b", "project": "Home", "priority": 2, "assignee_id": 99}"#),
        (
            .post, nil, nil,
            #"[{"title": "c", "project": "Work", "priority": 3}, {"title": "d", "project": "Work", "priority": 4}]"#
        ),
        (.patch, nil, "project=eq.Work&priority=gte.4", #"{"assignee_id": 2}"#),
        (.patch, nil, "id=in.(1,3)", #"{"priority": 5}"#),
        (.patch, nil, "assignee_id=is.null", #"{"title": "unassigned"}"#),
        (.patch, "1", nil, #"{"title": "renamed"}"#),
        (.patch, "77", nil, #"{"title": "none"}"#),
        (.delete, nil, "priority=lt.5", ""),
        (.delete, "1", nil, ""),
        (.delete, "1", nil, ""),
        (.delete, nil, "project=neq.Home", ""),
    ]

    /// `status body` of a write of `/todos` (of `/people` for a body of names).
    static func answer(
        _ store: some TodoStore, _ method: HTTPRequest.Method, id: String?, query: String?, body: String
    ) async -> String {
        var headers = HTTPFields()
        headers[.contentType] = "application/json"
        headers[HTTPField.Name("Prefer")!] = "return=representation"
        let request = RESTRequest(method: method, id: id, query: query, headers: headers) { _ in
            .bytes(Data(body.utf8))
        }
        let response: RESTResponse
        do {
            response =
                body.contains("name")
                ? try await RESTWrites<_, PersonInput>(store: store, filters: ["id", "name"]).answer(request)
                : try await RESTWrites<_, TodoInput>(store: store, filters: Set(TodoTables.todoFilters)).answer(request)
        } catch let error as TodoServerError {
            response = error.answer
        } catch {
            return "unexpected \(error)"
        }
        return "\(response.status.code) \(String(decoding: response.body ?? Data(), as: UTF8.self))"
    }

    /// Runs Fluent's migrations on `url`'s database, in a Vapor application of their own.
    static func migrate(_ url: String) async throws {
        let app = try await Self.application(url)
        do {
            try await app.autoMigrate()
        } catch {
            try? await app.asyncShutdown()
            throw error
        }
        try await app.asyncShutdown()
    }

    /// Runs `body` with the store the Vapor server opens on `configuration` (`fluent`), or the Hummingbird one's.
    static func withStore<Result: Sendable>(
        _ configuration: TodoConfiguration, fluent: Bool, _ body: (any TodoStore) async throws -> Result
    ) async throws -> Result {
        let logger = Logger(label: "FluentTodoStoreTests")
        var result: Result?
        guard fluent else {
            try await configuration.withStore(logger: logger) { result = try await body($0) }
            return try #require(result)
        }
        let app = try await Self.application(try #require(configuration.postgresURL))
        do {
            try await TodoVaporServer(configuration: configuration, logger: logger).withStore(on: app) { store in
                #expect(store is FluentTodoStore)
                result = try await body(store)
            }
        } catch {
            try? await app.asyncShutdown()
            throw error
        }
        try await app.asyncShutdown()
        return try #require(result)
    }

    /// A Vapor application with the example's database and migrations.
    private static func application(_ url: String) async throws -> Application {
        let app = try await Application.make(.testing)
        try TodoVaporServer.useDatabase(url, on: app)
        return app
    }
}

extension Array {
    /// The elements' transforms, one after another.
    fileprivate func asyncMap<T>(_ transform: (Element) async throws -> T) async throws -> [T] {
        var results: [T] = []
        for element in self { results.append(try await transform(element)) }
        return results
    }
}
