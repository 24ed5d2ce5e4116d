import Fluent
import FluentPostgresDriver

/// Creates `people(id bigserial primary key, name text not null)`; a table already there (made by an earlier
/// server, without Fluent's log) is kept as it is.
public struct CreatePeople: AsyncMigration {
    /// The migration.
    ///
    /// - Complexity: O(1).
    public init() {}

    public func prepare(on database: any Database) async throws {
        try await database.schema(PersonModel.schema)
            .field("id", .custom(SQLRaw("bigserial")), .identifier(auto: false))
            .field("name", .string, .required)
            .ignoreExisting()
            .create()
    }

    public func revert(on database: any Database) async throws {
        try await database.schema(PersonModel.schema).delete()
    }
}
