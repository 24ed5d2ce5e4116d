import LiveResults

/// The fields of a to-do that a request writes: `title`, `project` and `priority` for an insert (and
/// `assignee_id`, `null` by default), any of them for an update.
public struct TodoInput: RowInput, Equatable {
    public var title: String?
    public var project: String?
    public var priority: Int?
    /// `nil` leaves the assignee as it is; `.some(nil)` unassigns.
    public var assigneeID: Int64??

    public init(title: String? = nil, project: String? = nil, priority: Int? = nil, assigneeID: Int64?? = nil) {
        self.title = title
        self.project = project
        self.priority = priority
        self.assigneeID = assigneeID
    }

    public init(_ fields: RowFields) throws(TodoServerError) {
        title = try fields.text("title")
        project = try fields.text("project")
        priority = try fields.integer("priority")
        assigneeID = try fields.nullableBigint("assignee_id")
    }

    public func row(id: Int64) -> Todo {
        Todo(
            id: id, title: title ?? "", project: project ?? "", priority: priority ?? 0,
            assigneeID: assigneeID ?? nil)
    }

    public func applied(to row: Todo) -> Todo {
        var todo = row
        if let title { todo.title = title }
        if let project { todo.project = project }
        if let priority { todo.priority = priority }
        if let assigneeID { todo.assigneeID = assigneeID }
        return todo
    }

    public var assignments: [(column: String, value: QueryValue)] {
        var assignments: [(column: String, value: QueryValue)] = []
        if let title { assignments.append(("title", .text(title))) }
        if let project { assignments.append(("project", .text(project))) }
        if let priority { assignments.append(("priority", .integer(Int64(priority)))) }
        if let assigneeID { assignments.append(("assignee_id", assigneeID.map(QueryValue.integer) ?? .null)) }
        return assignments
    }
}
