import LiveResults
import LiveResultsServing

/// To-dos and people kept in the server's memory: gone when it stops.
public final class MemoryTodoStore: TodoStore {
    public let todos: MemoryTable<Todo>
    public let people: MemoryTable<Person>
    public let controller: FetchedResultsController<Todo>
    private let subscription: EventSubscription

    /// A store holding `todos` and `people` (their ids kept), whose controller has fetched the to-dos.
    public init(_ todos: [Todo] = [], people: [Person] = []) async throws {
        let peopleTable = MemoryTable(people)
        self.people = peopleTable
        // The foreign key: a to-do's assignee is a person.
        let table = MemoryTable(todos) { todo in
            guard let id = todo.assigneeID, !peopleTable.contains(id) else { return }
            throw TodoServerError.postgREST(
                PostgRESTError(
                    status: 409, code: "23503",
                    message:
                        "insert or update on table \"todos\" violates foreign key constraint \"todos_assignee_id_fkey\"",
                    details: "Key (assignee_id)=(\(id)) is not present in table \"people\"."))
        }
        self.todos = table
        controller = Todo.controller(table.fetchDefinition(for: try LiveQuery(sectionedBy: "project")))
        subscription = controller.observe(table)
        try await controller.performFetch()
    }

    public func insert<Input: RowInput>(_ inputs: [Input]) async throws -> [Input.Row] {
        try table(of: Input.Row.self).insert(inputs)
    }

    public func update<Input: RowInput>(_ query: LiveQuery<Input.Row>, with input: Input) async throws -> [Input.Row] {
        try table(of: Input.Row.self).update(query, with: input)
    }

    public func delete<Row: TableRow>(_ query: LiveQuery<Row>) async throws -> [Row] {
        let deleted = try table(of: Row.self).delete(query)
        if Row.self == Person.self, !deleted.isEmpty {
            // `on delete set null`: their to-dos are unassigned.
            let ids = deleted.map { QueryValue.integer($0.id) }
            let assigned = try LiveQuery<Todo>(filters: [LiveQueryFilter(column: "assignee_id", condition: .in(ids))])
            _ = try todos.update(assigned, checking: false) {
                var todo = $0
                todo.assigneeID = nil
                return todo
            }
        }
        return deleted
    }

    /// The table of `Row`s.
    private func table<Row: TableRow>(of row: Row.Type) throws -> MemoryTable<Row> {
        if let table = todos as? MemoryTable<Row> { return table }
        if let table = people as? MemoryTable<Row> { return table }
        throw TodoServerError.badRequest("no table of \(Row.self)")
    }
}
