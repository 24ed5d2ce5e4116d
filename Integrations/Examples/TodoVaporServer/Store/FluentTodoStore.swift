import Fluent
import HTTPTypes
import LiveResults
import LiveResultsServing
import LiveResultsPostgres
import TodoApp

/// To-dos and people in PostgreSQL, written through Fluent's models as a Vapor app writes them, and read and
/// followed by LiveResults: the live queries read `base`'s tables, which learn of every committed write
/// (through Fluent, through SQL or through another service) from the trigger or the write-ahead log.
///
/// Each write is one Fluent transaction, bounded by the store's query timeout, and answers as
/// ``PostgresTodoStore`` does: the rows by id, `503` with `Retry-After` when the database is out of reach,
/// PostgreSQL's own error (a foreign key: `409 23503`) when it refuses.
public final class FluentTodoStore: TodoStore {
    /// The store whose tables answer the live queries, and whose client bounds the writes.
    public let base: PostgresTodoStore
    private let database: any Database

    /// A store writing through `database`'s Fluent models and reading through `base`.
    ///
    /// - Complexity: O(1).
    public init(base: PostgresTodoStore, database: any Database) {
        self.base = base
        self.database = database
    }

    public var todos: PostgresTodoStore.Table { base.todos }
    public var people: PostgresTodoStore.PeopleTable { base.people }
    public var sourceStatus: LiveResultsSourceStatus? { base.sourceStatus }

    public func checkHealth() async throws { try await base.checkHealth() }

    /// Shuts `base` down: its change feed drops its temporary slot.
    ///
    /// - Complexity: `base`'s.
    public func shutdown(within timeout: Duration) async { await base.shutdown(within: timeout) }

    public func insert<Input: RowInput>(_ inputs: [Input]) async throws -> [Input.Row] {
        try await write { database in try await Self.insert(try Self.model(of: Input.Row.self), inputs, on: database) }
    }

    public func update<Input: RowInput>(_ query: LiveQuery<Input.Row>, with input: Input) async throws -> [Input.Row] {
        try await write { database in
            try await Self.update(try Self.model(of: Input.Row.self), query, with: input, on: database)
        }
    }

    public func delete<Row: TableRow>(_ query: LiveQuery<Row>) async throws -> [Row] {
        try await write { database in try await Self.delete(try Self.model(of: Row.self), query, on: database) }
    }

    /// The model of `row`'s table.
    private static func model(of row: (some TableRow).Type) throws -> any RowModel.Type {
        switch row.table {
        case Todo.table: TodoModel.self
        case Person.table: PersonModel.self
        default: throw unknownTable(row)
        }
    }

    private static func insert<Model: RowModel, Input: RowInput>(
        _ model: Model.Type, _ inputs: [Input], on database: any Database
    ) async throws -> [Input.Row] {
        var rows: [Input.Row] = []
        for input in inputs {
            let row = Model()
            row.apply(try cast(input))
            try await row.create(on: database)
            rows.append(try cast(try row.row()))
        }
        return rows
    }

    private static func update<Model: RowModel, Input: RowInput>(
        _ model: Model.Type, _ query: LiveQuery<Input.Row>, with input: Input, on database: any Database
    ) async throws -> [Input.Row] {
        let input: Model.Input = try cast(input)
        var rows: [Input.Row] = []
        for row in try await Model.query(on: database).filter(query).sort(\._$id).all() {
            row.apply(input)
            try await row.save(on: database)
            rows.append(try cast(try row.row()))
        }
        return rows
    }

    private static func delete<Model: RowModel, Row: TableRow>(
        _ model: Model.Type, _ query: LiveQuery<Row>, on database: any Database
    ) async throws -> [Row] {
        let rows = try await Model.query(on: database).filter(query).sort(\._$id).all()
        try await rows.delete(on: database)
        return try rows.map { try cast(try $0.row()) }
    }

    /// Runs `body` in one Fluent transaction, bounded and reported as the base store's writes are.
    private func write<Result: Sendable>(
        _ body: @escaping @Sendable (any Database) async throws -> Result
    ) async throws -> Result {
        let database = self.database
        return try await base.boundedWrite { _ in try await database.transaction { try await body($0) } }
    }

    /// `value` as the type the caller's generic parameters name: the same type, since the model was chosen by
    /// the row's table.
    private static func cast<Value, Wanted>(_ value: Value) throws -> Wanted {
        guard let value = value as? Wanted else { throw unknownTable(Wanted.self) }
        return value
    }

    private static func unknownTable(_ row: Any.Type) -> TodoServerError {
        .status(.internalServerError, "no Fluent model for \(row)")
    }
}
