import Fluent
import TodoApp

/// A row of `todos` as a Fluent model: what the Vapor example's writes go through.
// Fluent's models are classes whose property wrappers hold mutable state, which is not `Sendable`; Fluent
// declares its own models `@unchecked Sendable` so, and each instance here lives within one write's task.
public final class TodoModel: RowModel, @unchecked Sendable {
    /// The table, `todos`.
    public static let schema = "todos"

    /// The id the database gives (`bigserial`).
    @ID(custom: "id", generatedBy: .database) public var id: Int64?
    /// The title.
    @Field(key: "title") public var title: String
    /// The project, the to-do's section on the page.
    @Field(key: "project") public var project: String
    /// The priority (`int`).
    @Field(key: "priority") public var priority: Int
    /// The person the to-do is assigned to, if any (`assignee_id`, set to `NULL` when they are deleted).
    @OptionalParent(key: "assignee_id") public var assignee: PersonModel?

    /// An empty model, for Fluent.
    ///
    /// - Complexity: O(1).
    public init() {}

    /// The to-do this model holds.
    ///
    /// - Throws: `FluentError.idRequired` for a model not yet saved.
    /// - Complexity: O(1).
    public func row() throws -> Todo {
        Todo(id: try requireID(), title: title, project: project, priority: priority, assigneeID: $assignee.id)
    }

    /// Sets the fields `input` sets.
    ///
    /// - Complexity: O(1).
    public func apply(_ input: TodoInput) {
        if let title = input.title { self.title = title }
        if let project = input.project { self.project = project }
        if let priority = input.priority { self.priority = priority }
        if let assigneeID = input.assigneeID { $assignee.id = assigneeID }
    }
}
