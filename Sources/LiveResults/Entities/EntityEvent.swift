/// A change to the data behind a ``FetchedResultsController``, delivered live by an ``EventSource``
/// or applied directly with ``FetchedResultsController/apply(_:)-([EntityEvent<Entity>])``.
///
/// The controller applies these rules:
/// - `inserted` of an unknown id inserts the entity if the definition includes it; of a known id it is
///   treated as `updated`.
/// - `updated` of a known id: equal content is no change; otherwise the entity stays in place and is
///   reported updated, moves if its section or sort keys changed, or is removed if it is no longer
///   included. `updated` of an unknown id that is included inserts it.
/// - `deleted` of an unknown id is no change.
/// - `invalidated` makes the controller refetch.
public enum EntityEvent<Entity: FetchableEntity>: Sendable {
    /// A new entity exists.
    case inserted(Entity)
    /// An entity's content changed; this is its new version.
    case updated(Entity)
    /// The entity with this id no longer exists.
    case deleted(Entity.ID)
    /// The source's data was reset: everything must be fetched again.
    case invalidated
}

extension EntityEvent: Equatable {}

extension EntityEvent {
    /// The id of the entity the event is about, or `nil` for ``invalidated``.
    @inlinable public var entityID: Entity.ID? {
        switch self {
        case .inserted(let entity), .updated(let entity): entity.id
        case .deleted(let id): id
        case .invalidated: nil
        }
    }
}
