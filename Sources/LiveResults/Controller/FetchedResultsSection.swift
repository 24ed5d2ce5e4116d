/// One section of a ``FetchedResultsSnapshot``: the entities that share a section name, in order.
public struct FetchedResultsSection<Entity: FetchableEntity>: Sendable {
    @usableFromInline let _section: _SectionedStorage<Entity>.Section
    @usableFromInline let _records: _HashTrie<Entity.ID, _StoredEntity<Entity>>

    /// The section name: the value of the section key path shared by its entities, or `""` when the
    /// controller has no section key path.
    @inlinable public var name: String { _section.name }

    /// The entities of the section, in order.
    @inlinable public var objects: Objects { Objects(_items: _section.items, _records: _records) }

    /// The number of entities in the section.
    ///
    /// - Complexity: O(1).
    @inlinable public var numberOfObjects: Int { _section.items.count }

    /// The entities of a section.
    public struct Objects: RandomAccessCollection, Sendable {
        @usableFromInline let _items: _Tree<_SectionedStorage<Entity>.Slot>
        @usableFromInline let _records: _HashTrie<Entity.ID, _StoredEntity<Entity>>

        /// Always 0.
        @inlinable public var startIndex: Int { 0 }
        /// The number of elements.
        @inlinable public var endIndex: Int { _items.count }

        /// - Complexity: O(log *n*).
        @inlinable public subscript(position: Int) -> Entity { _records[_items[position].id]!.entity }

        /// Iterates in order without a search per element.
        ///
        /// - Complexity: O(log *n*): it descends to the section's first entity.
        @inlinable public func makeIterator() -> Iterator {
            Iterator(_slots: _items.makeIterator(), _records: _records)
        }

        /// Iterates the entities of a section in order.
        public struct Iterator: IteratorProtocol {
            @usableFromInline var _slots: _Tree<_SectionedStorage<Entity>.Slot>.Iterator
            @usableFromInline let _records: _HashTrie<Entity.ID, _StoredEntity<Entity>>

            /// The next entity, or `nil` at the end.
            ///
            /// - Complexity: O(1) amortized for the walk through the tree, plus the entity's lookup by id, O(log₁₆
            ///   *n*).
            @inlinable public mutating func next() -> Entity? {
                _slots.next().map { _records[$0.id]!.entity }
            }

            @usableFromInline
            init(
                _slots: _Tree<_SectionedStorage<Entity>.Slot>.Iterator,
                _records: _HashTrie<Entity.ID, _StoredEntity<Entity>>
            ) {
                self._slots = _slots
                self._records = _records
            }
        }

        @usableFromInline
        init(_items: _Tree<_SectionedStorage<Entity>.Slot>, _records: _HashTrie<Entity.ID, _StoredEntity<Entity>>) {
            self._items = _items
            self._records = _records
        }
    }

    @usableFromInline
    init(_section: _SectionedStorage<Entity>.Section, _records: _HashTrie<Entity.ID, _StoredEntity<Entity>>) {
        self._section = _section
        self._records = _records
    }
}

/// The sections of a ``FetchedResultsSnapshot``, in section order.
public struct FetchedResultsSections<Entity: FetchableEntity>: RandomAccessCollection, Sendable {
    @usableFromInline let _storage: _SectionedStorage<Entity>

    /// Always 0.
    @inlinable public var startIndex: Int { 0 }
    /// The number of elements.
    @inlinable public var endIndex: Int { _storage.sections.count }

    /// - Complexity: O(log *s*) for *s* sections.
    @inlinable public subscript(position: Int) -> FetchedResultsSection<Entity> {
        FetchedResultsSection(_section: _storage.sections[position], _records: _storage.records)
    }

    @usableFromInline
    init(_storage: _SectionedStorage<Entity>) {
        self._storage = _storage
    }
}
