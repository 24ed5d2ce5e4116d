import LiveResults

/// A to-do: the example's entity. It is stored as JSON under `"todo.<id>"`.
///
/// Its `project` is its section; `priority` orders it inside the project (1 first), then `title`.
public struct TodoItem: StorableEntity, Hashable {
    /// Stored under `"todo.1"`, `"todo.2"`…
    public static let keyPrefix = "todo."

    /// Unique and stable: new to-dos get the next number.
    public let id: Int
    /// What to do.
    public var title: String
    /// The project: the section the to-do is shown in.
    public var project: String
    /// 1 comes first.
    public var priority: Int
    /// Who wrote it, if anyone: the key of a future author association.
    public var authorID: String?

    /// Creates a to-do.
    public init(id: Int, title: String, project: String, priority: Int, authorID: String? = nil) {
        self.id = id
        self.title = title
        self.project = project
        self.priority = priority
        self.authorID = authorID
    }
}
