import Foundation
import LiveResults
import LiveResultsPostgres
import PostgresNIO
import Testing

extension Todo: QueryableEntity {
    static let queryColumns: [QueryColumn<Todo>] = [
        QueryColumn("id", \.id), QueryColumn("title", \.title), QueryColumn("project", \.project),
        QueryColumn("priority", \.priority),
    ]
}

/// A live query's filters as SQL: the rows PostgreSQL selects are the rows `isIncluded` accepts.
@Suite("Live queries over PostgreSQL", .timeLimit(.minutes(3)))
struct QueryTests {
    static let titles = ["a", "B", "b", "é", "éx", "z", "O'Brien", "'; DROP TABLE todos; --", "日本", "100%", ""]

    @Test("random queries select in SQL exactly what their isIncluded accepts, with every value bound")
    func sqlMatchesSwift() async throws {
        try await withDatabase { client, _ in
            try await client.query(PostgresQuery(unsafeSQL: Todo.createTable()))
            var generator = SystemRandomNumberGenerator()
            var rows: [Todo] = []
            for index in 0..<120 {
                let title = Self.titles.randomElement(using: &generator)!
                let project = ["Home", "Work", "Ünï"].randomElement(using: &generator)!
                let priority = Int.random(in: -2...3, using: &generator)
                let id = try await client.query(
                    "INSERT INTO todos (title, project, priority) VALUES (\(title), \(project), \(priority)) RETURNING id"
                ).collect().first!.decode(Int64.self)
                rows.append(Todo(id: id, title: title, project: project, priority: priority))
                _ = index
            }
            let table = PostgresLiveTable<Todo>(client: client, table: "todos")
            for _ in 0..<150 {
                let query = try Self.randomQuery(using: &generator)
                let fetched = try await table.fetchDefinition(for: query).request()
                #expect(
                    Set(fetched.map(\.id)) == Set(rows.filter(query.isIncluded).map(\.id)), "\(query)")
            }
            // The table is still there: the values were never SQL.
            #expect(try await client.query("SELECT count(*) FROM todos").collect().first!.decode(Int.self) == 120)
        }
    }

    @Test("an in list of 1,000 values is one bound array")
    func longInList() async throws {
        try await withDatabase { client, _ in
            try await client.query(PostgresQuery(unsafeSQL: Todo.createTable()))
            try await client.query(
                "INSERT INTO todos (title, project, priority) SELECT 't' || n, 'p', n FROM generate_series(1, 2000) n")
            let table = PostgresLiveTable<Todo>(client: client, table: "todos")
            let query = try LiveQuery<Todo>(filters: [
                LiveQueryFilter(column: "priority", condition: .in((0..<1_000).map { .integer(Int64($0 * 2)) }))
            ])
            #expect(try await table.fetchDefinition(for: query).request().count == 999)
        }
    }

    static func randomQuery(using generator: inout some RandomNumberGenerator) throws -> LiveQuery<Todo> {
        var filters: [LiveQueryFilter] = []
        let text = { (generator: inout SystemRandomNumberGenerator) in
            QueryValue.text(Self.titles.randomElement(using: &generator)!)
        }
        var system = SystemRandomNumberGenerator()
        for _ in 0..<Int.random(in: 1...3, using: &generator) {
            let condition: LiveQueryCondition
            let column: String
            switch Int.random(in: 0..<12, using: &generator) {
            case 0: (column, condition) = ("title", .equal(text(&system)))
            case 1: (column, condition) = ("title", .lessThan(text(&system)))
            case 2: (column, condition) = ("title", .greaterThanOrEqual(text(&system)))
            case 3: (column, condition) = ("title", .in([text(&system), text(&system)]))
            case 4: (column, condition) = ("priority", .notEqual(.integer(Int64.random(in: -2...3, using: &generator))))
            case 5:
                (column, condition) = (
                    "priority", .lessThanOrEqual(.integer(Int64.random(in: -2...3, using: &generator)))
                )
            case 6:
                (column, condition) = ("priority", .greaterThan(.integer(Int64.random(in: -2...3, using: &generator))))
            case 7: (column, condition) = ("project", .in([.text("Ünï"), .text("Home")]))
            case 8: (column, condition) = ("title", .notIn([text(&system), text(&system)]))
            case 9: (column, condition) = ("project", .notIn(Bool.random(using: &generator) ? [] : [.text("Home")]))
            case 10: (column, condition) = ("priority", .isNotNull)
            default: (column, condition) = ("project", .notEqual(.text("Work")))
            }
            filters.append(LiveQueryFilter(column: column, condition: condition))
        }
        return try LiveQuery(filters: filters, sectionedBy: "project")
    }
}
