import Foundation
import LiveResults

/// A row of a table `rows(id, title, project, priority)`, whose JSON keys are its columns.
struct Row: FetchableEntity, QueryableEntity, Codable, Hashable {
    var id: Int64
    var title: String
    var project: String
    var priority: Int

    static let queryColumns: [QueryColumn<Row>] = [
        QueryColumn("id", \.id), QueryColumn("title", \.title), QueryColumn("project", \.project),
        QueryColumn("priority", \.priority),
    ]
}
