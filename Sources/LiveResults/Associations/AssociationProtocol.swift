/// An ``Association`` of any value type, for lists of associations such as
/// ``FetchDefinition/associations``.
///
/// ```swift
/// let definition = FetchDefinition<Post>(request: fetchPosts, associations: [authors, tags])
/// ```
///
/// Only ``Association`` conforms: its requirement is an implementation detail.
public protocol AssociationProtocol<Entity>: AnyObject, Sendable {
    /// The kind of entity whose related values the association fetches.
    associatedtype Entity: FetchableEntity

    /// The association with its key and value types erased. Not API.
    var _erased: _AnyAssociation<Entity> { get }
}
