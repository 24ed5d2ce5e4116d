import Foundation

/// All entities of a ``FetchedResultsSnapshot`` in display order, section after section.
public struct FetchedObjects<Entity: FetchableEntity>: RandomAccessCollection, Sendable {
    @usableFromInline let _storage: _SectionedStorage<Entity>

    /// Always 0.
    @inlinable public var startIndex: Int { 0 }
    /// The number of elements.
    @inlinable public var endIndex: Int { _storage.count }

    /// - Complexity: O(log *n*).
    @inlinable public subscript(position: Int) -> Entity {
        precondition(position >= 0 && position < endIndex, "index out of range")
        let (section, item) = _storage.sections.position(ofWeight: position)
        return _storage[IndexPath(_section: section, item: item)].entity
    }

    /// Iterates in order without a search per element.
    ///
    /// - Complexity: O(log *n*): it descends to the first entity.
    @inlinable public func makeIterator() -> Iterator {
        Iterator(_sections: _storage.sections.makeIterator(), _records: _storage.records)
    }

    /// Iterates all entities in display order.
    public struct Iterator: IteratorProtocol {
        @usableFromInline var _sections: _Tree<_SectionedStorage<Entity>.Section>.Iterator
        @usableFromInline var _current: FetchedResultsSection<Entity>.Objects.Iterator?
        @usableFromInline let _records: _HashTrie<Entity.ID, _StoredEntity<Entity>>

        @inlinable init(
            _sections: _Tree<_SectionedStorage<Entity>.Section>.Iterator,
            _records: _HashTrie<Entity.ID, _StoredEntity<Entity>>
        ) {
            self._sections = _sections
            self._records = _records
        }

        /// The next entity, or `nil` at the end.
        ///
        /// - Complexity: O(1) amortized for the walk through the trees, plus the entity's lookup by id, O(log₁₆ *n*).
        @inlinable public mutating func next() -> Entity? {
            while true {
                if let entity = _current?.next() { return entity }
                guard let section = _sections.next() else { return nil }
                _current = FetchedResultsSection.Objects.Iterator(
                    _slots: section.items.makeIterator(), _records: _records)
            }
        }
    }

    @usableFromInline
    init(_storage: _SectionedStorage<Entity>) {
        self._storage = _storage
    }
}
