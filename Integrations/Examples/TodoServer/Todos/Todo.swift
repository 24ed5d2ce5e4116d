import Foundation
import LiveResults

/// A to-do: the row of `todos(id bigserial primary key, title text not null, project text not null, priority
/// int not null)`, and the JSON `{"id": 1, "title": "…", "project": "…", "priority": 2}`.
public struct Todo: FetchableEntity, Codable, Hashable {
    public var id: Int64
    public var title: String
    public var project: String
    public var priority: Int

    public init(id: Int64, title: String, project: String, priority: Int) {
        self.id = id
        self.title = title
        self.project = project
        self.priority = priority
    }

    /// Sections by project, then priority ascending, then insertion order: ids are given in insertion
    /// order (a sequence), so every process that shows one table orders it alike.
    public static let sortDescriptors = [SortDescriptor(\Todo.priority), SortDescriptor(\Todo.id)]

    /// The controller of the server: its definition, ordered and sectioned as above; `diagnostics` receives
    /// what it handled without failing (a row that did not decode, a refetch that failed).
    public static func controller(
        _ definition: FetchDefinition<Todo>, diagnostics: (@Sendable (ControllerDiagnostic<Todo>) -> Void)? = nil
    ) -> FetchedResultsController<Todo> {
        FetchedResultsController(
            definition: definition, sortDescriptors: sortDescriptors, sectionNameKeyPath: \Todo.project,
            diagnostics: diagnostics)
    }
}

extension Todo: QueryableEntity {
    /// The columns clients may name in `/todos`' queries: those of the table.
    public static let queryColumns: [QueryColumn<Todo>] = [
        QueryColumn("id", \.id), QueryColumn("title", \.title), QueryColumn("project", \.project),
        QueryColumn("priority", \.priority),
    ]
}
