import Fluent
import FluentPostgresDriver

/// Adds `todos.assignee_id bigint null references people(id) on delete set null`, unless the column is there:
/// a database an earlier server made has the table without Fluent's log, with or without the column.
///
/// Fluent's schema builder adds a column only unconditionally, so this one statement is SQL (PostgreSQL's
/// `ADD COLUMN IF NOT EXISTS`), and its constraint keeps the name the other server gives it.
public struct AddTodoAssignee: AsyncMigration {
    /// The migration.
    ///
    /// - Complexity: O(1).
    public init() {}

    public func prepare(on database: any Database) async throws {
        try await sql(database).raw(
            """
            ALTER TABLE todos ADD COLUMN IF NOT EXISTS assignee_id bigint NULL \
            CONSTRAINT todos_assignee_id_fkey REFERENCES people(id) ON DELETE SET NULL
            """
        ).run()
    }

    public func revert(on database: any Database) async throws {
        try await sql(database).raw("ALTER TABLE todos DROP COLUMN IF EXISTS assignee_id").run()
    }

    private func sql(_ database: any Database) throws -> any SQLDatabase {
        guard let sql = database as? any SQLDatabase else { throw NotSQL() }
        return sql
    }

    /// The database speaks no SQL: the migration is PostgreSQL's.
    private struct NotSQL: Error, CustomStringConvertible {
        var description: String { "AddTodoAssignee needs PostgreSQL" }
    }
}
