import LiveResults
import NIOConcurrencyHelpers

/// The in-memory table of to-dos: rows, and the events of their writes, as a queryable source.
///
/// A write changes the rows and publishes its event under one lock, so that every subscriber sees the writes
/// in the order the table made them, and a fetch sees a write either in its rows or as an event after it.
public final class MemoryTodoTable: QueryableSource {
    private struct Rows {
        var todos: [Int64: Todo] = [:]
        var lastID: Int64 = 0
    }

    private let rows: NIOLockedValueBox<Rows>
    private let bus = EventBus<Todo>()

    /// A table holding `todos`, their ids kept.
    public init(_ todos: [Todo] = []) {
        rows = NIOLockedValueBox(
            Rows(todos: Dictionary(todos.map { ($0.id, $0) }) { $1 }, lastID: todos.map(\.id).max() ?? 0))
    }

    /// Fetches the rows `query` selects.
    ///
    /// - Complexity: O(*n*) for *n* rows.
    public func fetchDefinition(for query: LiveQuery<Todo>) -> FetchDefinition<Todo> {
        FetchDefinition(
            request: { [rows] in rows.withLockedValue { $0.todos.values.filter(query.isIncluded) } },
            isIncluded: query.isIncluded)
    }

    /// Delivers the events of every later write.
    ///
    /// - Complexity: O(1).
    public func subscribe(_ subscriber: EventSubscriber<Todo>) -> EventSubscription {
        bus.subscribe(subscriber)
    }

    /// Adds a to-do made of `input`, with the next id.
    func create(_ input: TodoInput) -> Todo {
        rows.withLockedValue { rows in
            rows.lastID += 1
            let todo = Todo(
                id: rows.lastID, title: input.title ?? "", project: input.project ?? "", priority: input.priority ?? 0)
            rows.todos[todo.id] = todo
            bus.publish(.inserted(todo))
            return todo
        }
    }

    /// Changes the fields `input` sets of to-do `id`; `nil` when there is none.
    func update(id: Int64, with input: TodoInput) -> Todo? {
        rows.withLockedValue { rows in
            guard let todo = rows.todos[id]?.updated(with: input) else { return nil }
            rows.todos[id] = todo
            bus.publish(.updated(todo))
            return todo
        }
    }

    /// Removes to-do `id`; `false` when there is none.
    func delete(id: Int64) -> Bool {
        rows.withLockedValue { rows in
            guard rows.todos.removeValue(forKey: id) != nil else { return false }
            bus.publish(.deleted(id))
            return true
        }
    }
}
