/// One section of a ``FetchedResultsSnapshot``: the entities that share a section name, in order.
public struct FetchedResultsSection<Entity: FetchableEntity>: Sendable {
    let _section: _SectionedStorage<Entity>.Section

    /// The section name: the value of the section key path shared by its entities, or `""` when the
    /// controller has no section key path.
    public var name: String { _section.name }

    /// The entities of the section, in order.
    public var objects: Objects { Objects(_items: _section.items) }

    /// The number of entities in the section.
    ///
    /// - Complexity: O(1).
    public var numberOfObjects: Int { _section.items.count }

    /// The entities of a section.
    public struct Objects: RandomAccessCollection, Sendable {
        let _items: [_StoredEntity<Entity>]

        /// Always 0.
        public var startIndex: Int { 0 }
        /// The number of elements.
        public var endIndex: Int { _items.count }

        /// - Complexity: O(1).
        public subscript(position: Int) -> Entity { _items[position].entity }
    }
}

/// The sections of a ``FetchedResultsSnapshot``, in section order.
public struct FetchedResultsSections<Entity: FetchableEntity>: RandomAccessCollection, Sendable {
    let _storage: _SectionedStorage<Entity>

    /// Always 0.
    public var startIndex: Int { 0 }
    /// The number of elements.
    public var endIndex: Int { _storage.sections.count }

    /// - Complexity: O(1).
    public subscript(position: Int) -> FetchedResultsSection<Entity> {
        FetchedResultsSection(_section: _storage.sections[position])
    }
}
