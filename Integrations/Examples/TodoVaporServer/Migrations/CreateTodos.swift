import Fluent
import FluentPostgresDriver

/// Creates `todos(id bigserial primary key, title text not null, project text not null, priority int not
/// null)`, as the first server made it; a table already there is kept as it is. ``AddTodoAssignee`` adds
/// `assignee_id`.
public struct CreateTodos: AsyncMigration {
    /// The migration.
    ///
    /// - Complexity: O(1).
    public init() {}

    public func prepare(on database: any Database) async throws {
        try await database.schema(TodoModel.schema)
            .field("id", .custom(SQLRaw("bigserial")), .identifier(auto: false))
            .field("title", .string, .required)
            .field("project", .string, .required)
            .field("priority", .int32, .required)
            .ignoreExisting()
            .create()
    }

    public func revert(on database: any Database) async throws {
        try await database.schema(TodoModel.schema).delete()
    }
}
