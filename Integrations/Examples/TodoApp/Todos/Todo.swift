import Foundation
import LiveResults

/// A to-do: the row of `todos(id bigserial primary key, title text not null, project text not null, priority
/// int not null, assignee_id bigint null references people(id) on delete set null)`, and the JSON
/// `{"id": 1, "title": "…", "project": "…", "priority": 2, "assignee_id": null}`.
public struct Todo: FetchableEntity, Codable, Hashable {
    public var id: Int64
    public var title: String
    public var project: String
    public var priority: Int
    /// The person the to-do is assigned to, or `nil`.
    public var assigneeID: Int64?

    public init(id: Int64, title: String, project: String, priority: Int, assigneeID: Int64? = nil) {
        self.id = id
        self.title = title
        self.project = project
        self.priority = priority
        self.assigneeID = assigneeID
    }

    private enum CodingKeys: String, CodingKey {
        case id, title, project, priority
        case assigneeID = "assignee_id"
    }

    /// Decodes a to-do; a JSON without `assignee_id` (the previous version's) is unassigned.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        id = try container.decode(Int64.self, forKey: .id)
        title = try container.decode(String.self, forKey: .title)
        project = try container.decode(String.self, forKey: .project)
        priority = try container.decode(Int.self, forKey: .priority)
        assigneeID = try container.decodeIfPresent(Int64.self, forKey: .assigneeID)
    }

    /// Encodes every key, `assignee_id` as `null` when unassigned (a row has every column).
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(id, forKey: .id)
        try container.encode(title, forKey: .title)
        try container.encode(project, forKey: .project)
        try container.encode(priority, forKey: .priority)
        try container.encode(assigneeID, forKey: .assigneeID)
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

extension Todo: TableRow {
    /// `todos`.
    public static var table: String { "todos" }

    /// The columns clients may name in `/todos`' queries: those of the table, in its order.
    public static let queryColumns: [QueryColumn<Todo>] = [
        QueryColumn("id", \.id), QueryColumn("title", \.title), QueryColumn("project", \.project),
        QueryColumn("priority", \.priority), QueryColumn("assignee_id", \.assigneeID),
    ]
}
