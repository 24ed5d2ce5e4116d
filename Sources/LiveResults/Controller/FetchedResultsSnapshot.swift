import Foundation

/// An immutable view of a ``FetchedResultsController``'s results at one moment.
///
/// A snapshot stays valid and unchanged while the controller keeps changing. Taking one does not copy
/// the entities.
///
/// ```swift
/// let snapshot = controller.snapshot
/// for section in snapshot.sections {
///     print(section.name, section.numberOfObjects)
/// }
/// let first = snapshot.object(at: IndexPath(item: 0, section: 0))
/// ```
public struct FetchedResultsSnapshot<Entity: FetchableEntity>: Sendable {
    @usableFromInline let _storage: _SectionedStorage<Entity>
    /// The positions of a replica's results, which follow no ordering rule (see ``ResultsReplica``);
    /// `nil` for a controller's.
    @usableFromInline let _positions: _PositionIndex<Entity.ID>?
    /// The part of the storage a ``LiveWindow``'s snapshot shows; `nil` for all of it.
    @usableFromInline let _window: _WindowSlice?
    /// The items of each section a ``CollapsibleSections`` display shows; `nil` for all of them.
    @usableFromInline let _displayed: _DisplayedItems?

    @inlinable init(
        _storage: _SectionedStorage<Entity>, _positions: _PositionIndex<Entity.ID>? = nil,
        _window: _WindowSlice? = nil, _displayed: _DisplayedItems? = nil
    ) {
        self._storage = _storage
        self._positions = _positions
        self._window = _window
        self._displayed = _displayed
    }

    /// The sections, in section order.
    ///
    /// - Complexity: O(1).
    @inlinable public var sections: FetchedResultsSections<Entity> {
        FetchedResultsSections(_storage: _storage, _window: _window, _displayed: _displayed)
    }

    /// All entities in display order, section after section.
    ///
    /// - Complexity: O(1).
    @inlinable public var fetchedObjects: FetchedObjects<Entity> {
        FetchedObjects(_storage: _storage, _window: _window, _displayed: _displayed)
    }

    /// The number of entities.
    ///
    /// - Complexity: O(1).
    @inlinable public var count: Int { _window?.count ?? _displayed?.total ?? _storage.count }

    /// Whether there are no entities.
    @inlinable public var isEmpty: Bool { count == 0 }

    /// The entity at an index path.
    ///
    /// - Precondition: `indexPath` is a valid section and item of this snapshot.
    /// - Complexity: O(log *n*).
    @inlinable public func object(at indexPath: IndexPath) -> Entity {
        precondition(indexPath.count == 2, "an index path of a section and an item")
        if let _displayed {
            precondition(
                _displayed.counts.indices.contains(indexPath[0]) && indexPath[1] < _displayed.counts[indexPath[0]],
                "the item at \(indexPath) is not displayed")
        }
        guard let _window else { return _storage[indexPath].entity }
        guard let inStorage = _window.storageIndexPath(of: indexPath, in: _storage) else {
            preconditionFailure("the index path \(indexPath) is outside the window")
        }
        return _storage[inStorage].entity
    }

    /// The index path of the entity with the same id as `entity`, or `nil` if it is not shown.
    ///
    /// - Complexity: O(log *n*).
    @inlinable public func indexPath(for entity: Entity) -> IndexPath? {
        indexPath(forID: entity.id)
    }

    /// The index path of the entity with this id, or `nil` if it is not shown.
    ///
    /// - Complexity: O(log *n*).
    @inlinable public func indexPath(forID id: Entity.ID) -> IndexPath? {
        if let _window {
            return _storage.indexPath(forID: id).flatMap { _window.windowIndexPath(of: $0) }
        }
        if let _displayed {
            return _storage.indexPath(forID: id).flatMap { $0[1] < _displayed.counts[$0[0]] ? $0 : nil }
        }
        guard let _positions else { return _storage.indexPath(forID: id) }
        guard let stored = _storage.stored(forID: id) else { return nil }
        let place = _storage.sections.position(ofWeight: _positions.position(ofLabel: stored.sequence))
        return IndexPath(_section: place.position, item: place.remainder)
    }

    /// The shown version of the entity with this id, or `nil`.
    ///
    /// - Complexity: O(log₁₆ *n*); for a window's snapshot, O(log *n*).
    @inlinable public func object(withID id: Entity.ID) -> Entity? {
        if _window != nil || _displayed != nil, indexPath(forID: id) == nil { return nil }
        return _storage.stored(forID: id)?.entity
    }
}

extension FetchedResultsSnapshot: Equatable {
    /// Whether two snapshots show the same sections with the same entities in the same order.
    ///
    /// - Complexity: O(*n*).
    @inlinable public static func == (lhs: Self, rhs: Self) -> Bool {
        lhs.sections.elementsEqual(rhs.sections) { $0.name == $1.name && $0.objects.elementsEqual($1.objects) }
    }
}

extension FetchedResultsSnapshot {
    /// Traps unless the snapshot's storage is well formed. For the library's tests; not API.
    @_spi(Testing) @inlinable public func _checkInvariants() {
        _storage._checkInvariants()
    }
}
