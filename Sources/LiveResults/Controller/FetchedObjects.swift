import Foundation

/// All entities of a ``FetchedResultsSnapshot`` in display order, section after section.
public struct FetchedObjects<Entity: FetchableEntity>: RandomAccessCollection, Sendable {
    @usableFromInline let _storage: _SectionedStorage<Entity>
    /// The part of the storage a ``LiveWindow`` shows; `nil` for all of it.
    @usableFromInline let _window: _WindowSlice?
    /// The items of each section a ``CollapsibleSections`` display shows; `nil` for all of them.
    @usableFromInline let _displayed: _DisplayedItems?

    /// Always 0.
    @inlinable public var startIndex: Int { 0 }
    /// The number of elements.
    @inlinable public var endIndex: Int { _window?.count ?? _displayed?.total ?? _storage.count }

    /// - Complexity: O(log *n*); O(*s*) more in a collapsible display of *s* sections.
    @inlinable public subscript(position: Int) -> Entity {
        precondition(position >= 0 && position < endIndex, "index out of range")
        if let _displayed {
            let (section, item) = _displayed.indexPath(at: position)
            return _storage[IndexPath(_section: section, item: item)].entity
        }
        let (section, item) = _storage.sections.position(ofWeight: (_window?.positions.lowerBound ?? 0) + position)
        return _storage[IndexPath(_section: section, item: item)].entity
    }

    /// Iterates in order without a search per element.
    ///
    /// - Complexity: O(log *n*): it descends to the first entity.
    @inlinable public func makeIterator() -> Iterator {
        guard let _window else {
            var iterator = Iterator(_sections: _storage.sections.makeIterator(), _records: _storage.records)
            iterator._displayed = _displayed
            return iterator
        }
        var iterator = Iterator(
            _sections: _storage.sections.makeIterator(from: _window.firstSection), _records: _storage.records)
        iterator._window = _window
        return iterator
    }

    /// Iterates all entities in display order.
    public struct Iterator: IteratorProtocol {
        @usableFromInline var _sections: _Tree<_SectionedStorage<Entity>.Section>.Iterator
        @usableFromInline var _current: FetchedResultsSection<Entity>.Objects.Iterator?
        @usableFromInline let _records: _HashTrie<Entity.ID, _StoredEntity<Entity>>
        /// The window iterated, if any, and the number of its sections entered so far.
        @usableFromInline var _window: _WindowSlice?
        /// The items displayed of each section, in a collapsible display.
        @usableFromInline var _displayed: _DisplayedItems?
        @usableFromInline var _sectionsEntered = 0

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
                guard let window = _window else {
                    let count = _displayed.map { $0.counts[_sectionsEntered] } ?? section.items.count
                    _sectionsEntered += 1
                    _current = FetchedResultsSection.Objects.Iterator(
                        _slots: section.items.makeIterator(), _records: _records, _remaining: count)
                    continue
                }
                guard _sectionsEntered < window.sectionCount else { return nil }
                let items = window.items(ofSection: _sectionsEntered, size: section.items.count)
                _sectionsEntered += 1
                _current = FetchedResultsSection.Objects.Iterator(
                    _slots: section.items.makeIterator(from: items.lowerBound), _records: _records,
                    _remaining: items.count)
            }
        }
    }

    @usableFromInline
    init(_storage: _SectionedStorage<Entity>, _window: _WindowSlice? = nil, _displayed: _DisplayedItems? = nil) {
        self._storage = _storage
        self._window = _window
        self._displayed = _displayed
    }
}
