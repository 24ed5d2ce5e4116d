import Foundation
import LiveResults

/// The to-do of the tests: a row of `todos(id bigserial primary key, title text not null, project text not
/// null, priority int not null)`.
struct Todo: FetchableEntity, Codable, Hashable {
    var id: Int64
    var title: String
    var project: String
    var priority: Int
}

extension Todo {
    /// The statement that creates the tests' table (`name` already quoted).
    static func createTable(_ name: String = "todos") -> String {
        """
        CREATE TABLE \(name) (id bigserial PRIMARY KEY, title text NOT NULL, project text NOT NULL, \
        priority int NOT NULL)
        """
    }

    /// The sort descriptors that order the tests' controllers like `ORDER BY project, priority, id`.
    static let sortDescriptors = [SortDescriptor(\Todo.priority), SortDescriptor(\Todo.id)]
}
