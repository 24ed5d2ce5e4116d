import Foundation
import LiveResults
import LiveResultsServing

/// People and their to-dos in memory (`todos.assignee_id` references `people.id`), with the relations a
/// route declares for them.
struct Assignments {
    struct Person: QueryableEntity, Codable, Hashable {
        var id: Int64
        var name: String
        static let queryColumns: [QueryColumn<Person>] = [QueryColumn("id", \.id), QueryColumn("name", \.name)]
    }

    struct Todo: QueryableEntity, Codable, Hashable {
        var id: Int64
        var title: String
        var priority: Int
        var assignee_id: Int64?
        static let queryColumns: [QueryColumn<Todo>] = [
            QueryColumn("id", \.id), QueryColumn("title", \.title), QueryColumn("priority", \.priority),
            QueryColumn("assignee_id", \.assignee_id),
        ]
    }

    let people: MemoryTable<Person>
    let todos: MemoryTable<Todo>

    init(people: [Person], todos: [Todo]) {
        self.people = MemoryTable(people)
        self.todos = MemoryTable(todos)
    }

    var relations: LiveRelations {
        var relations = LiveRelations()
        relations.addTable("people", source: people)
        relations.addTable("todos", source: todos)
        relations.addForeignKey(from: "todos", column: "assignee_id", to: "people")
        return relations
    }

    /// The query and `select=` of a request's parameters on `table`, as a live-queries route reads them.
    static func request<Entity: QueryableEntity>(
        _ parameters: [(String, String)], table: String, as entity: Entity.Type, relations: LiveRelations
    ) throws -> (query: LiveQuery<Entity>, select: SelectList, window: WindowRange) {
        let query = try PostgRESTQuery(parameters: parameters, table: table)
        try query.validate(for: Entity.self, relations: relations)
        let columns = Set(Entity.queryColumns.map(\.name))
        let rules = LiveQueryRules(filters: columns, orders: columns, maximumListLength: .max)
        let request = try LiveQueryRequest<Entity>(parameters: query.queryParameters, rules: rules)
        return (request.query, query.select, request.window)
    }
}
