/// One section of a ``FetchedResultsSnapshot``: the entities that share a section name, in order.
public struct FetchedResultsSection<Entity: FetchableEntity>: Sendable {
    @usableFromInline let _section: _SectionedStorage<Entity>.Section
    @usableFromInline let _records: _HashTrie<Entity.ID, _StoredEntity<Entity>>
    /// The items of the section that a ``LiveWindow`` shows: all of them outside a window.
    @usableFromInline let _items: Range<Int>

    /// The section name: the value of the section key path shared by its entities, or `""` when the
    /// controller has no section key path.
    @inlinable public var name: String { _section.name }

    /// The entities of the section, in order.
    @inlinable public var objects: Objects { Objects(_items: _section.items, _records: _records, _range: _items) }

    /// The number of entities in the section.
    ///
    /// - Complexity: O(1).
    @inlinable public var numberOfObjects: Int { _items.count }

    /// The entities of a section.
    public struct Objects: RandomAccessCollection, Sendable {
        @usableFromInline let _items: _Tree<_SectionedStorage<Entity>.Slot>
        @usableFromInline let _records: _HashTrie<Entity.ID, _StoredEntity<Entity>>
        /// The items shown: all of them outside a window.
        @usableFromInline let _range: Range<Int>

        /// Always 0.
        @inlinable public var startIndex: Int { 0 }
        /// The number of elements.
        @inlinable public var endIndex: Int { _range.count }

        /// - Complexity: O(log *n*).
        @inlinable public subscript(position: Int) -> Entity {
            precondition(position >= 0 && position < _range.count, "index out of range")
            return _records[_items[_range.lowerBound + position].id]!.entity
        }

        /// Iterates in order without a search per element.
        ///
        /// - Complexity: O(log *n*): it descends to the section's first entity.
        @inlinable public func makeIterator() -> Iterator {
            Iterator(
                _slots: _range.lowerBound == 0 ? _items.makeIterator() : _items.makeIterator(from: _range.lowerBound),
                _records: _records, _remaining: _range.count)
        }

        /// Iterates the entities of a section in order.
        public struct Iterator: IteratorProtocol {
            @usableFromInline var _slots: _Tree<_SectionedStorage<Entity>.Slot>.Iterator
            @usableFromInline let _records: _HashTrie<Entity.ID, _StoredEntity<Entity>>
            /// The number of entities still to iterate.
            @usableFromInline var _remaining: Int

            /// The next entity, or `nil` at the end.
            ///
            /// - Complexity: O(1) amortized for the walk through the tree, plus the entity's lookup by id, O(log₁₆
            ///   *n*).
            @inlinable public mutating func next() -> Entity? {
                guard _remaining > 0 else { return nil }
                _remaining -= 1
                return _slots.next().map { _records[$0.id]!.entity }
            }

            @usableFromInline
            init(
                _slots: _Tree<_SectionedStorage<Entity>.Slot>.Iterator,
                _records: _HashTrie<Entity.ID, _StoredEntity<Entity>>, _remaining: Int
            ) {
                self._slots = _slots
                self._records = _records
                self._remaining = _remaining
            }
        }

        @usableFromInline
        init(
            _items: _Tree<_SectionedStorage<Entity>.Slot>, _records: _HashTrie<Entity.ID, _StoredEntity<Entity>>,
            _range: Range<Int>
        ) {
            self._items = _items
            self._records = _records
            self._range = _range
        }
    }

    @usableFromInline
    init(
        _section: _SectionedStorage<Entity>.Section, _records: _HashTrie<Entity.ID, _StoredEntity<Entity>>,
        _items: Range<Int>? = nil
    ) {
        self._section = _section
        self._records = _records
        self._items = _items ?? 0..<_section.items.count
    }
}

/// The sections of a ``FetchedResultsSnapshot``, in section order.
public struct FetchedResultsSections<Entity: FetchableEntity>: RandomAccessCollection, Sendable {
    @usableFromInline let _storage: _SectionedStorage<Entity>
    /// The part of the storage a ``LiveWindow``'s sections show; `nil` for all of it.
    @usableFromInline let _window: _WindowSlice?
    /// The items of each section a ``CollapsibleSections`` display shows; `nil` for all of them.
    @usableFromInline let _displayed: _DisplayedItems?

    /// Always 0.
    @inlinable public var startIndex: Int { 0 }
    /// The number of elements.
    @inlinable public var endIndex: Int { _window?.sectionCount ?? _storage.sections.count }

    /// - Complexity: O(log *s*) for *s* sections.
    @inlinable public subscript(position: Int) -> FetchedResultsSection<Entity> {
        guard let _window else {
            return FetchedResultsSection(
                _section: _storage.sections[position], _records: _storage.records,
                _items: _displayed.map { 0..<$0.counts[position] })
        }
        precondition(position >= 0 && position < _window.sectionCount, "index out of range")
        let section = _storage.sections[_window.firstSection + position]
        return FetchedResultsSection(
            _section: section, _records: _storage.records,
            _items: _window.items(ofSection: position, size: section.items.count))
    }

    @usableFromInline
    init(_storage: _SectionedStorage<Entity>, _window: _WindowSlice? = nil, _displayed: _DisplayedItems? = nil) {
        self._storage = _storage
        self._window = _window
        self._displayed = _displayed
    }
}
