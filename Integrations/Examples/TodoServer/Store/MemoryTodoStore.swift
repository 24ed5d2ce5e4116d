import LiveResults

/// To-dos kept in the server's memory: gone when it stops.
public final class MemoryTodoStore: TodoStore {
    public let todos: MemoryTodoTable
    public let controller: FetchedResultsController<Todo>
    private let subscription: EventSubscription

    /// A store holding `todos` (their ids kept), whose controller has fetched them.
    public init(_ todos: [Todo] = []) async throws {
        let table = MemoryTodoTable(todos)
        self.todos = table
        controller = Todo.controller(table.fetchDefinition(for: try LiveQuery(sectionedBy: "project")))
        subscription = controller.observe(table)
        try await controller.performFetch()
    }

    public func create(_ input: TodoInput) async throws -> Todo { todos.create(input) }

    public func update(id: Int64, with input: TodoInput) async throws -> Todo? { todos.update(id: id, with: input) }

    public func delete(id: Int64) async throws -> Bool { todos.delete(id: id) }
}
