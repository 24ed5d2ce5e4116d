import LiveResults
import LiveResultsHummingbird

/// Where the server keeps its to-dos: a queryable source the live queries of `/todos` read, and a controller
/// of them all.
///
/// A write changes the store and, through the store's live source, every query's controller: in memory the
/// table publishes the write's event itself; over PostgreSQL the table's trigger (or the write-ahead log)
/// tells every process.
public protocol TodoStore: Sendable {
    /// The kind of the store's table.
    associatedtype Table: QueryableSource<Todo>

    /// The table of to-dos, which answers the clients' queries.
    var todos: Table { get }

    /// The live results of all the store's to-dos, in the server's default order (for readers in the process).
    var controller: FetchedResultsController<Todo> { get }

    /// Adds a to-do made of `input` (all fields set), and returns it with its id.
    func create(_ input: TodoInput) async throws -> Todo

    /// Changes the fields `input` sets of to-do `id`; `nil` when there is no such to-do.
    func update(id: Int64, with input: TodoInput) async throws -> Todo?

    /// Removes to-do `id`; `false` when there is no such to-do.
    func delete(id: Int64) async throws -> Bool

    /// Returns when the store can serve writes; throws why not (`GET /health`).
    func checkHealth() async throws

    /// Whether the store's database is within reach, for the streams' clients; `nil` for a store that
    /// needs nothing outside the process.
    var sourceStatus: LiveResultsSourceStatus? { get }
}

extension TodoStore {
    /// A store that needs nothing outside the process is always healthy.
    public func checkHealth() async throws {}

    /// A store that needs nothing outside the process has no status to report.
    public var sourceStatus: LiveResultsSourceStatus? { nil }
}

extension Todo {
    /// This to-do with the fields `input` sets.
    func updated(with input: TodoInput) -> Todo {
        var todo = self
        if let title = input.title { todo.title = title }
        if let project = input.project { todo.project = project }
        if let priority = input.priority { todo.priority = priority }
        return todo
    }
}
