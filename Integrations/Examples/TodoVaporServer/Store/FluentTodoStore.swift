import Fluent
import HTTPTypes
import LiveResults
import LiveResultsHummingbird
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
    public var controller: FetchedResultsController<Todo> { base.controller }
    public var sourceStatus: LiveResultsSourceStatus? { base.sourceStatus }

    public func checkHealth() async throws { try await base.checkHealth() }

    public func insert<Input: RowInput>(_ inputs: [Input]) async throws -> [Input.Row] {
        try await write { database in
            var rows: [Input.Row] = []
            for input in inputs {
                switch input {
                case let input as TodoInput:
                    let model = TodoModel()
                    model.apply(input)
                    try await model.create(on: database)
                    rows.append(try Self.row(try model.todo()))
                case let input as PersonInput:
                    let model = PersonModel()
                    model.apply(input)
                    try await model.create(on: database)
                    rows.append(try Self.row(try model.person()))
                default:
                    throw Self.unknownTable(Input.Row.self)
                }
            }
            return rows
        }
    }

    public func update<Input: RowInput>(_ query: LiveQuery<Input.Row>, with input: Input) async throws -> [Input.Row] {
        try await write { database in
            switch input {
            case let input as TodoInput:
                var rows: [Input.Row] = []
                for model in try await TodoModel.query(on: database).filter(query).sort(\.$id).all() {
                    model.apply(input)
                    try await model.save(on: database)
                    rows.append(try Self.row(try model.todo()))
                }
                return rows
            case let input as PersonInput:
                var rows: [Input.Row] = []
                for model in try await PersonModel.query(on: database).filter(query).sort(\.$id).all() {
                    model.apply(input)
                    try await model.save(on: database)
                    rows.append(try Self.row(try model.person()))
                }
                return rows
            default:
                throw Self.unknownTable(Input.Row.self)
            }
        }
    }

    public func delete<Row: TableRow>(_ query: LiveQuery<Row>) async throws -> [Row] {
        try await write { database in
            switch Row.table {
            case Todo.table:
                let models = try await TodoModel.query(on: database).filter(query).sort(\.$id).all()
                try await models.delete(on: database)
                return try models.map { try Self.row(try $0.todo()) }
            case Person.table:
                let models = try await PersonModel.query(on: database).filter(query).sort(\.$id).all()
                try await models.delete(on: database)
                return try models.map { try Self.row(try $0.person()) }
            default:
                throw Self.unknownTable(Row.self)
            }
        }
    }

    /// Runs `body` in one Fluent transaction, bounded and reported as the base store's writes are.
    private func write<Result: Sendable>(
        _ body: @escaping @Sendable (any Database) async throws -> Result
    ) async throws -> Result {
        let database = self.database
        return try await base.boundedWrite { _ in try await database.transaction { try await body($0) } }
    }

    /// `row` as the row type the caller asked for, which names the same table.
    private static func row<Row, Wanted>(_ row: Row) throws -> Wanted {
        guard let row = row as? Wanted else { throw unknownTable(Wanted.self) }
        return row
    }

    private static func unknownTable(_ row: Any.Type) -> TodoServerError {
        .status(.internalServerError, "no Fluent model for \(row)")
    }
}
