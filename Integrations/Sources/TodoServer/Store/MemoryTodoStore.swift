import LiveResults
import LiveResultsLockSupport

/// To-dos kept in the server's memory: gone when it stops.
public final class MemoryTodoStore: TodoStore {
    private struct Rows {
        var todos: [Int64: Todo] = [:]
        var lastID: Int64 = 0
    }

    /// The rows, shared with the controller's fetch.
    private final class Table: Sendable {
        let rows: PthreadLock<Rows>

        init(_ rows: Rows) { self.rows = PthreadLock(rows) }
    }

    public let controller: FetchedResultsController<Todo>
    private let table: Table

    /// A store holding `todos` (their ids kept), whose controller has fetched them.
    public init(_ todos: [Todo] = []) async throws {
        let table = Table(Rows(todos: Dictionary(todos.map { ($0.id, $0) }) { $1 }, lastID: todos.map(\.id).max() ?? 0))
        self.table = table
        controller = Todo.controller(FetchDefinition(request: { table.rows.withLock { Array($0.todos.values) } }))
        try await controller.performFetch()
    }

    public func create(_ input: TodoInput) async throws -> Todo {
        table.rows.withLock { rows in
            rows.lastID += 1
            let todo = Todo(
                id: rows.lastID, title: input.title ?? "", project: input.project ?? "", priority: input.priority ?? 0)
            rows.todos[todo.id] = todo
            // Under the lock, so that the controller sees the writes in the order the store made them.
            _ = controller.apply(.inserted(todo))
            return todo
        }
    }

    public func update(id: Int64, with input: TodoInput) async throws -> Todo? {
        table.rows.withLock { rows in
            guard let todo = rows.todos[id]?.updated(with: input) else { return nil }
            rows.todos[id] = todo
            _ = controller.apply(.updated(todo))
            return todo
        }
    }

    public func delete(id: Int64) async throws -> Bool {
        table.rows.withLock { rows in
            guard rows.todos.removeValue(forKey: id) != nil else { return false }
            _ = controller.apply(.deleted(id))
            return true
        }
    }
}
