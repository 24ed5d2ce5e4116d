/// A value that a ``FetchedResultsController`` can show.
///
/// Two versions with the same `id` are the same entity; `==` decides whether its content changed.
/// Entities are usually value types:
///
/// ```swift
/// struct Post: FetchableEntity {
///     let id: Int
///     var title: String
///     var topic: String
///     var score: Int
/// }
/// ```
public protocol FetchableEntity: Identifiable, Equatable, Sendable where ID: Sendable {}
