/// What one batch of a live association's related events does to its cache, keyed as the cache is.
///
/// A batch is reduced before any controller sees it: the last event of each key wins, and an
/// invalidation forgets the events before it, since the cache it empties holds none of their keys.
@usableFromInline struct _RelatedChanges: Sendable {
    /// Whether the batch invalidated the related source: every cached value is dropped before ``values``
    /// apply.
    @usableFromInline var invalidates = false
    /// The last value of each key the batch changed, after its last invalidation: the related entity, or
    /// `nil` for one deleted.
    @usableFromInline var values: [_AssociationKey: (any Sendable)?] = [:]

    @inlinable init(invalidates: Bool = false) {
        self.invalidates = invalidates
    }

    /// Reduces a batch of the related source's events.
    ///
    /// - Complexity: O(*k*) for *k* events.
    @inlinable init<Related: FetchableEntity>(_ events: [EntityEvent<Related>]) {
        values.reserveCapacity(events.count)
        for event in events {
            switch event {
            case .inserted(let related), .updated(let related):
                values.updateValue(related, forKey: _AssociationKey(related.id))
            case .deleted(let id):
                values.updateValue(nil, forKey: _AssociationKey(id))
            case .invalidated:
                invalidates = true
                values.removeAll()
            }
        }
    }
}

/// A controller that caches the values of a live association, told of each batch of its related events.
@usableFromInline protocol _RelatedChangesListener: AnyObject, Sendable {
    /// Applies a batch of related changes to the cache of the association with this identity.
    func relatedChangesArrived(_ changes: _RelatedChanges, association: ObjectIdentifier)
}
