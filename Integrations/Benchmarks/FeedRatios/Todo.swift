import Foundation
import LiveResults

/// The server example's to-do: the row of `todos(id bigint primary key, title text not null, project text not
/// null, priority int not null, assignee_id bigint null)`, sectioned by project and ordered by priority, then id.
struct Todo: FetchableEntity, Decodable {
    var id: Int64
    var title: String
    var project: String
    var priority: Int
    var assigneeID: Int64?

    private enum CodingKeys: String, CodingKey {
        case id, title, project, priority
        case assigneeID = "assignee_id"
    }

    static let sortDescriptors = [SortDescriptor(\Todo.priority), SortDescriptor(\Todo.id)]
    static let projects = (0..<20).map { "Project \($0)" }

    /// The to-do of id `id`, as the table starts.
    init(id: Int64) {
        self.id = id
        title = "Call back about order \(id)"
        project = Self.projects[Int(id) % Self.projects.count]
        priority = Int(id % 5)
        assigneeID = id % 3 == 0 ? nil : id % 97
    }

    /// A controller ordered and sectioned as the server example's, over `todos`, fetched.
    static func controller(of todos: [Todo]) async throws -> FetchedResultsController<Todo> {
        let controller = FetchedResultsController(
            definition: FetchDefinition(request: { todos }), sortDescriptors: sortDescriptors,
            sectionNameKeyPath: \Todo.project)
        try await controller.performFetch()
        return controller
    }
}
