/// Who wrote a to-do: stored as JSON under `"author.<id>"`, and shown through the
/// ``TodoList/authors`` association.
public struct Author: StorableEntity, Hashable {
    /// Stored under `"author.ana"`, `"author.ben"`…
    public static let keyPrefix = "author."

    /// The id a to-do names in its `authorID`, such as `"ana"`.
    public let id: String
    /// The name shown in the list, such as `"Ana Lima"`.
    public var name: String

    /// Creates an author.
    public init(id: String, name: String) {
        self.id = id
        self.name = name
    }
}
