/// One section of a ``FetchedResultsSnapshot``: the entities that share a section name, in order.
public struct FetchedResultsSection<Entity: FetchableEntity>: Sendable {
    let _section: _SectionedStorage<Entity>.Section
    let _records: _HashTrie<Entity.ID, _StoredEntity<Entity>>

    /// The section name: the value of the section key path shared by its entities, or `""` when the
    /// controller has no section key path.
    public var name: String { _section.name }

    /// The entities of the section, in order.
    public var objects: Objects { Objects(_items: _section.items, _records: _records) }

    /// The number of entities in the section.
    ///
    /// - Complexity: O(1).
    public var numberOfObjects: Int { _section.items.count }

    /// The entities of a section.
    public struct Objects: RandomAccessCollection, Sendable {
        let _items: _Tree<_SectionedStorage<Entity>.Slot>
        let _records: _HashTrie<Entity.ID, _StoredEntity<Entity>>

        /// Always 0.
        public var startIndex: Int { 0 }
        /// The number of elements.
        public var endIndex: Int { _items.count }

        /// - Complexity: O(log *n*).
        public subscript(position: Int) -> Entity { _records[_items[position].id]!.entity }

        /// Iterates in order without a search per element.
        public func makeIterator() -> Iterator {
            Iterator(_slots: _items.makeIterator(), _records: _records)
        }

        /// Iterates the entities of a section in order.
        public struct Iterator: IteratorProtocol {
            var _slots: _Tree<_SectionedStorage<Entity>.Slot>.Iterator
            let _records: _HashTrie<Entity.ID, _StoredEntity<Entity>>

            /// The next entity, or `nil` at the end.
            public mutating func next() -> Entity? {
                _slots.next().map { _records[$0.id]!.entity }
            }
        }
    }
}

/// The sections of a ``FetchedResultsSnapshot``, in section order.
public struct FetchedResultsSections<Entity: FetchableEntity>: RandomAccessCollection, Sendable {
    let _storage: _SectionedStorage<Entity>

    /// Always 0.
    public var startIndex: Int { 0 }
    /// The number of elements.
    public var endIndex: Int { _storage.sections.count }

    /// - Complexity: O(log *s*) for *s* sections.
    public subscript(position: Int) -> FetchedResultsSection<Entity> {
        FetchedResultsSection(_section: _storage.sections[position], _records: _storage.records)
    }
}
