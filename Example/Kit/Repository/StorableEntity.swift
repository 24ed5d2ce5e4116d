import LiveResults

/// An entity that an ``EntityRepository`` keeps in a ``KeyValueStore``, as JSON under
/// `keyPrefix + id`.
///
/// ```swift
/// extension TodoItem: StorableEntity {
///     static let keyPrefix = "todo."      // "todo.1", "todo.2"…
/// }
/// ```
public protocol StorableEntity: FetchableEntity, Codable where ID: LosslessStringConvertible & Comparable {
    /// The start of every key of this kind of entity, such as `"todo."`.
    static var keyPrefix: String { get }
}
