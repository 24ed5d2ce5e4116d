import Fluent
import TodoApp

/// A row of `people` as a Fluent model.
// Fluent's models are classes whose property wrappers hold mutable state, which is not `Sendable`; Fluent
// declares its own models `@unchecked Sendable` so, and each instance here lives within one write's task.
public final class PersonModel: RowModel, @unchecked Sendable {
    /// The table, `people`.
    public static let schema = "people"

    /// The id the database gives (`bigserial`).
    @ID(custom: "id", generatedBy: .database) public var id: Int64?
    /// The name.
    @Field(key: "name") public var name: String
    /// The to-dos assigned to this person.
    @Children(for: \.$assignee) public var todos: [TodoModel]

    /// An empty model, for Fluent.
    ///
    /// - Complexity: O(1).
    public init() {}

    /// The person this model holds.
    ///
    /// - Throws: `FluentError.idRequired` for a model not yet saved.
    /// - Complexity: O(1).
    public func row() throws -> Person {
        Person(id: try requireID(), name: name)
    }

    /// Sets the fields `input` sets.
    ///
    /// - Complexity: O(1).
    public func apply(_ input: PersonInput) {
        if let name = input.name { self.name = name }
    }
}
