/// What one event did to the storage, with the places it touched: enough to report the event's change
/// set without looking anything up again.
@usableFromInline enum _EventOutcome<Entity: FetchableEntity> {
    @usableFromInline typealias Storage = _SectionedStorage<Entity>

    /// Nothing changed: an equal update, an unknown id, an excluded new entity, an invalidation.
    case unchanged
    /// The entity changed but kept its place.
    case updatedInPlace(_StoredEntity<Entity>, sectionName: String)
    case inserted(Storage.Insertion)
    case removed(Storage.Removal)
    /// The entity changed and went elsewhere, possibly into another section.
    case moved(Storage.Removal, Storage.Insertion)

    /// Whether the entity was removed, inserted or moved: what a batch diff must look at.
    @inlinable var isRepositioning: Bool {
        switch self {
        case .unchanged, .updatedInPlace: false
        case .inserted, .removed, .moved: true
        }
    }
}
