import Foundation

/// The entities in display order, as persistent structures that snapshots share:
///
/// - `records`, a hash trie from id to the entity and its insertion sequence: the only copy of each
///   entity;
/// - `sections`, a counted tree of sections in section order, weighted by their number of items, each
///   holding a counted tree of the ids of its entities in order.
///
/// Positions are found by descending the trees with the ordering rule, never by scanning. Every
/// operation below is O(log *n*) and copies only the nodes on its path that a snapshot shares.
@usableFromInline struct _SectionedStorage<Entity: FetchableEntity>: Sendable {
    /// The slot of one entity in its section's tree.
    @usableFromInline struct Slot: _TreeElement {
        @usableFromInline var id: Entity.ID
        @inlinable var treeKey: Entity.ID { id }
        @inlinable var treeWeight: Int { 1 }

        @usableFromInline
        init(id: Entity.ID) {
            self.id = id
        }
    }

    @usableFromInline struct Section: _TreeElement {
        @usableFromInline var name: String
        @usableFromInline var items: _Tree<Slot>
        @inlinable var treeKey: String { name }
        @inlinable var treeWeight: Int { items.count }

        @usableFromInline
        init(name: String, items: _Tree<Slot>) {
            self.name = name
            self.items = items
        }
    }

    @usableFromInline var sections = _Tree<Section>()
    @usableFromInline var records = _HashTrie<Entity.ID, _StoredEntity<Entity>>()
    @usableFromInline var ordering: _EntityOrdering<Entity>

    /// Creates an empty storage.
    @inlinable init(ordering: _EntityOrdering<Entity>) {
        self.ordering = ordering
    }

    /// Creates a storage holding `stored`, whose ids must be unique.
    ///
    /// - Complexity: O(*n* log *n*) comparisons, then O(*n*) to build.
    @inlinable init(ordering: _EntityOrdering<Entity>, contents stored: [_StoredEntity<Entity>]) {
        self.ordering = ordering
        var groups: [String: [_StoredEntity<Entity>]] = [:]
        for item in stored {
            groups[ordering.sectionName(item.entity), default: []].append(item)
        }
        let sorted = groups.map { name, items in
            Section(
                name: name,
                items: _Tree(sorted: items.sorted(by: ordering.precedes).lazy.map { Slot(id: $0.entity.id) }))
        }
        sections = _Tree(sorted: sorted.sorted { ordering.sectionOrder.areInIncreasingOrder($0.name, $1.name) })
        records = _HashTrie(uniqueKeysWithValues: stored.lazy.map { (key: $0.entity.id, value: $0) })
    }

    @inlinable var count: Int { records.count }

    /// Every stored entity in display order, for rebuilding with another order.
    @inlinable var allStored: [_StoredEntity<Entity>] {
        sections.flatMap { section in section.items.map { records[$0.id]! } }
    }

    /// - Complexity: O(log₃₂ *n*).
    @inlinable func stored(forID id: Entity.ID) -> _StoredEntity<Entity>? {
        records[id]
    }

    /// - Complexity: O(log *n*).
    @inlinable subscript(indexPath: IndexPath) -> _StoredEntity<Entity> {
        records[sections[indexPath[0]].items[indexPath[1]].id]!
    }

    /// Where a section with this name is, or would be inserted.
    ///
    /// - Complexity: O(log *s*) name comparisons for *s* sections.
    @inlinable func sectionIndex(named name: String) -> (index: Int, found: Bool) {
        let order = ordering.sectionOrder
        let index = sections.partitioningIndex { !order.areInIncreasingOrder($0, name) }
        return (index, index < sections.count && sections[index].name == name)
    }

    /// Where `stored` is, or would be inserted, inside `section`.
    @inlinable func itemIndex(of stored: _StoredEntity<Entity>, in section: Section) -> Int {
        section.items.partitioningIndex { id in !ordering.precedes(records[id]!, stored) }
    }

    /// The index path of the entity with this id.
    ///
    /// - Complexity: O(log *n*) comparisons.
    @inlinable func indexPath(forID id: Entity.ID) -> IndexPath? {
        guard let stored = records[id] else { return nil }
        let section = sectionIndex(named: ordering.sectionName(stored.entity))
        assert(section.found, "a stored entity's section exists")
        return IndexPath(indexes: [section.index, itemIndex(of: stored, in: sections[section.index])])
    }

    /// Inserts an entity whose id is not stored yet.
    ///
    /// - Complexity: O(log *n*).
    @inlinable mutating func insert(_ stored: _StoredEntity<Entity>) {
        assert(records[stored.entity.id] == nil, "insert of a stored id")
        records.updateValue(stored, forKey: stored.entity.id)
        let slot = Slot(id: stored.entity.id)
        let name = ordering.sectionName(stored.entity)
        let section = sectionIndex(named: name)
        guard section.found else {
            sections.insert(Section(name: name, items: _Tree(sorted: [slot])), at: section.index)
            return
        }
        let item = itemIndex(of: stored, in: sections[section.index])
        sections.modify(at: section.index) { $0.items.insert(slot, at: item) }
    }

    /// Removes the entity with this id, dropping its section when it becomes empty.
    ///
    /// - Returns: The removed entity, or `nil` if the id is not stored.
    /// - Complexity: O(log *n*).
    @discardableResult
    @inlinable mutating func remove(id: Entity.ID) -> _StoredEntity<Entity>? {
        guard let indexPath = indexPath(forID: id) else { return nil }
        if sections[indexPath[0]].items.count == 1 {
            sections.remove(at: indexPath[0])
        } else {
            sections.modify(at: indexPath[0]) { $0.items.remove(at: indexPath[1]) }
        }
        return records.removeValue(forKey: id)
    }

    /// Replaces an entity by a new version that has the same position (see
    /// ``_EntityOrdering/hasSamePosition(_:_:oldSection:)``).
    ///
    /// - Complexity: O(log₃₂ *n*): the trees hold ids, so only the record changes.
    @inlinable mutating func replaceInPlace(_ entity: Entity) {
        guard let stored = records[entity.id] else {
            preconditionFailure("replaceInPlace of an id that is not stored")
        }
        records.updateValue(_StoredEntity(entity: entity, sequence: stored.sequence), forKey: entity.id)
    }
}
