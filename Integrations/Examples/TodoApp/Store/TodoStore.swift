import LiveResults
import LiveResultsServing

/// Where the server keeps its to-dos and people: queryable sources the live queries of `/todos` and `/people`
/// read, and the writes.
///
/// A store keeps no controller of the to-dos for the server: the live queries' controllers are its readers, and
/// one nobody reads would apply every change for nothing. A reader in the process follows them with
/// ``followTodos()``.
///
/// A write changes the store and, through the store's live sources, every query's controller: in memory each
/// table publishes the write's events itself; over PostgreSQL the tables' triggers (or the write-ahead log)
/// tell every process. Each write is one transaction: all its rows or none.
public protocol TodoStore: Sendable {
    /// The kind of the store's table of to-dos.
    associatedtype Table: QueryableSource<Todo>
    /// The kind of the store's table of people.
    associatedtype PeopleTable: QueryableSource<Person>

    /// The table of to-dos, which answers the clients' queries.
    var todos: Table { get }

    /// The table of people.
    var people: PeopleTable { get }

    /// Inserts a row made of each input (all fields set), in one transaction, and returns them with their ids.
    func insert<Input: RowInput>(_ inputs: [Input]) async throws -> [Input.Row]

    /// Changes the fields `input` sets of the rows `query` selects, in one transaction; returns them, by id.
    func update<Input: RowInput>(_ query: LiveQuery<Input.Row>, with input: Input) async throws -> [Input.Row]

    /// Removes the rows `query` selects, in one transaction; returns them, by id.
    func delete<Row: TableRow>(_ query: LiveQuery<Row>) async throws -> [Row]

    /// Returns when the store can serve writes; throws why not (`GET /health`).
    func checkHealth() async throws

    /// Whether the store's database is within reach, for the streams' clients; `nil` for a store that
    /// needs nothing outside the process.
    var sourceStatus: LiveResultsSourceStatus? { get }

    /// Stops what the store runs beside its tables, as the server stops gracefully once its streams ended: over
    /// the write-ahead log, the change feed, which drops its temporary replication slot. Returns within `timeout`
    /// (the server's graceful shutdown's); the store serves no live change afterwards.
    func shutdown(within timeout: Duration) async
}

extension TodoStore {
    /// A store that needs nothing outside the process is always healthy.
    public func checkHealth() async throws {}

    /// A store that needs nothing outside the process has no status to report.
    public var sourceStatus: LiveResultsSourceStatus? { nil }

    /// A store that runs nothing beside its tables has nothing to stop.
    ///
    /// - Complexity: O(1).
    public func shutdown(within timeout: Duration) async {}

    /// The live results of all the store's to-dos, in the server's default order, for a reader in the process: a
    /// controller of ``todos``, fetched, which follows the table until the subscription is cancelled or released.
    ///
    /// - Complexity: One fetch of the whole table; then each change costs the controller's `apply`.
    public func followTodos() async throws -> (
        controller: FetchedResultsController<Todo>, subscription: EventSubscription
    ) {
        let controller = Todo.controller(todos.fetchDefinition(for: try LiveQuery(sectionedBy: "project")))
        let subscription = controller.observe(todos)
        try await controller.performFetch()
        return (controller, subscription)
    }

    /// Adds a to-do made of `input` (all fields set), and returns it with its id.
    public func create(_ input: TodoInput) async throws -> Todo {
        guard let todo = try await insert([input]).first else { throw TodoServerError.badRequest("not inserted") }
        return todo
    }
}
