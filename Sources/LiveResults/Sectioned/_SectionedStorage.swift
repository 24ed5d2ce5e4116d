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
    /// The slot of one entity in its section's tree: its id, and the abbreviation of its sort key (see
    /// ``_SortRule``), so that most comparisons in a search need neither the entity nor a key path.
    @usableFromInline struct Slot: _TreeElement, Equatable {
        @usableFromInline var id: Entity.ID
        @usableFromInline var key: UInt64
        @inlinable var treeKey: Slot { self }
        @inlinable var treeWeight: Int { 1 }

        @usableFromInline
        init(id: Entity.ID, key: UInt64) {
            self.id = id
            self.key = key
        }
    }

    @usableFromInline struct Section: _TreeElement {
        @usableFromInline var name: String
        @usableFromInline var items: _Tree<Slot>
        @inlinable var treeKey: String { name }
        @inlinable var treeWeight: Int { items.count }
        /// 40 sections of 24 bytes to a leaf: with its header and room for one more, 1032 bytes, which
        /// glibc's per-thread cache still serves, as it does item leaves (see
        /// ``_TreeElement/treeNodeCapacity``).
        @inlinable static var treeNodeCapacity: Int { 40 }

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

    @inlinable var count: Int { records.count }

    /// - Complexity: O(log₁₆ *n*).
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

    /// Where `stored` is, or would be inserted, inside `section`. If its id is stored, `stored` must be
    /// its record.
    @inlinable func itemIndex(of stored: _StoredEntity<Entity>, in section: Section) -> Int {
        let key = ordering.rule.abbreviate(stored.entity)
        // The entity's own slot is the first one not before it; naming it by id spares the comparison a
        // lookup of the entity, since the abbreviations of the two are equal.
        let id = stored.entity.id
        return section.items.partitioningIndex { $0.id == id || !slot($0, precedes: stored, abbreviatedAs: key) }
    }

    /// Whether the entity in `slot` comes before `stored`, whose abbreviated key is `key`. Only ties of
    /// abbreviations look at the entities, and only then is the key's exactness worked out: a tie looks
    /// up an entity anyway, and most descents meet none.
    @inlinable @inline(__always) func slot(
        _ slot: Slot, precedes stored: _StoredEntity<Entity>, abbreviatedAs key: UInt64
    ) -> Bool {
        Self.slot(slot, precedes: stored, abbreviatedAs: key, ordering: ordering, records: records)
    }

    /// ``slot(_:precedes:abbreviatedAs:)`` for code that mutates the section tree meanwhile, and so
    /// cannot call a method of the storage.
    @inlinable @inline(__always) static func slot(
        _ slot: Slot, precedes stored: _StoredEntity<Entity>, abbreviatedAs key: UInt64,
        ordering: _EntityOrdering<Entity>, records: _HashTrie<Entity.ID, _StoredEntity<Entity>>
    ) -> Bool {
        if ordering.rule.abbreviation != nil, slot.key != key { return slot.key < key }
        let other = records[slot.id]!
        return ordering.rule.isExact(key) ? other.sequence < stored.sequence : ordering.precedes(other, stored)
    }

    /// The index path of the entity with this id.
    ///
    /// - Complexity: O(log *n*) comparisons.
    @inlinable func indexPath(forID id: Entity.ID) -> IndexPath? {
        guard let stored = records[id] else { return nil }
        let place = place(of: stored, inSection: ordering.sectionName(stored.entity))
        return IndexPath(_section: place.section, item: place.item)
    }

    /// Where a stored entity is, given its section name.
    ///
    /// - Complexity: O(log *n*) comparisons.
    @inlinable func place(of stored: _StoredEntity<Entity>, inSection name: String) -> _Place {
        let section = sectionIndex(named: name)
        assert(section.found, "a stored entity's section exists")
        return _Place(section: section.index, item: itemIndex(of: stored, in: sections[section.index]))
    }

    /// Where an insertion put an entity, and whether it created the entity's section.
    @usableFromInline struct Insertion {
        @usableFromInline var place: _Place
        @usableFromInline var sectionName: String
        @usableFromInline var insertedSection: Bool

        @usableFromInline
        init(place: _Place, sectionName: String, insertedSection: Bool) {
            self.place = place
            self.sectionName = sectionName
            self.insertedSection = insertedSection
        }
    }

    /// Where a removed entity was, and whether removing it dropped its section.
    @usableFromInline struct Removal {
        @usableFromInline var stored: _StoredEntity<Entity>
        @usableFromInline var place: _Place
        @usableFromInline var sectionName: String
        @usableFromInline var removedSection: Bool

        @usableFromInline
        init(stored: _StoredEntity<Entity>, place: _Place, sectionName: String, removedSection: Bool) {
            self.stored = stored
            self.place = place
            self.sectionName = sectionName
            self.removedSection = removedSection
        }
    }

    /// Inserts an entity whose id is not stored yet.
    ///
    /// - Complexity: O(log *n*).
    @discardableResult
    @inlinable mutating func insert(_ stored: _StoredEntity<Entity>) -> Insertion {
        assert(records[stored.entity.id] == nil, "insert of a stored id")
        let insertion = insertSlot(of: stored, inSection: ordering.sectionName(stored.entity))
        records.updateValue(stored)
        return insertion
    }

    /// Removes the entity with this id, dropping its section when it becomes empty.
    ///
    /// - Returns: Where the entity was, or `nil` if the id is not stored.
    /// - Complexity: O(log *n*).
    @discardableResult
    @inlinable mutating func remove(id: Entity.ID) -> Removal? {
        guard let stored = records[id] else { return nil }
        // The slot goes first: finding it may compare entities, which reads the records.
        let removal = removeSlot(of: stored, inSection: ordering.sectionName(stored.entity))
        records.removeValue(forKey: id)
        return removal
    }

    /// Replaces a stored entity by a new version with the same id that goes elsewhere.
    ///
    /// - Parameters:
    ///   - old: The stored version, in section `oldName`.
    ///   - new: The new version, in section `newName`.
    /// - Complexity: O(log *n*).
    @inlinable mutating func move(
        _ old: _StoredEntity<Entity>, inSection oldName: String,
        to new: _StoredEntity<Entity>, inSection newName: String
    ) -> (removal: Removal, insertion: Insertion) {
        let removal = removeSlot(of: old, inSection: oldName)
        let insertion = insertSlot(of: new, inSection: newName)
        records.updateValue(new)
        return (removal, insertion)
    }

    /// Replaces an entity by a new version that keeps its place: same section and equivalent sort keys.
    ///
    /// - Complexity: O(log₁₆ *n*): the trees hold ids, so only the record changes.
    @inlinable mutating func replaceInPlace(_ entity: Entity) {
        guard let stored = records[entity.id] else {
            preconditionFailure("replaceInPlace of an id that is not stored")
        }
        replaceInPlace(_StoredEntity(entity: entity, sequence: stored.sequence))
    }

    /// Replaces a stored entity by `stored`, which has the same id, sequence and place.
    @inlinable mutating func replaceInPlace(_ stored: _StoredEntity<Entity>) {
        records.updateValue(stored)
    }

    /// Frees the earlier versions of entities that only released snapshots held, where the storage keeps
    /// them until a change passes by (see ``_HashTrie/absorbAllSources()``). Nothing a live snapshot holds
    /// is affected, and the contents do not change.
    ///
    /// - Complexity: O(*n*).
    @inlinable mutating func releaseUnsharedVersions() {
        records.absorbAllSources()
    }

    /// Puts the slot of `stored` into its section's tree, creating the section if needed.
    ///
    /// - Complexity: O(log *n*), in one descent of the section's tree.
    @inlinable mutating func insertSlot(of stored: _StoredEntity<Entity>, inSection name: String) -> Insertion {
        let slot = Slot(id: stored.entity.id, key: ordering.rule.abbreviate(stored.entity))
        let section = sectionIndex(named: name)
        guard section.found else {
            sections.insert(Section(name: name, items: _Tree(sorted: CollectionOfOne(slot))), at: section.index)
            return Insertion(place: _Place(section: section.index, item: 0), sectionName: name, insertedSection: true)
        }
        let item = sections.modify(at: section.index) { [ordering, records] section in
            section.items.insert(
                slot,
                atBoundaryOf: { other in
                    !Self.slot(other, precedes: stored, abbreviatedAs: slot.key, ordering: ordering, records: records)
                })
        }
        return Insertion(place: _Place(section: section.index, item: item), sectionName: name, insertedSection: false)
    }

    /// Takes the slot of `stored`, which must be stored, out of its section's tree, dropping the section
    /// when it becomes empty.
    ///
    /// - Complexity: O(log *n*), in one descent of the section's tree.
    @inlinable mutating func removeSlot(of stored: _StoredEntity<Entity>, inSection name: String) -> Removal {
        let section = sectionIndex(named: name)
        assert(section.found, "a stored entity's section exists")
        guard sections[section.index].items.count > 1 else {
            sections.remove(at: section.index)
            let place = _Place(section: section.index, item: 0)
            return Removal(stored: stored, place: place, sectionName: name, removedSection: true)
        }
        let (id, key) = (stored.entity.id, ordering.rule.abbreviate(stored.entity))
        let removed = sections.modify(at: section.index) { [ordering, records] section in
            // The entity's own slot is the last one that is not after it.
            section.items.removeLast(
                before: { other in
                    other.id != id
                        && !Self.slot(other, precedes: stored, abbreviatedAs: key, ordering: ordering, records: records)
                })
        }
        assert(removed.element.id == id, "removed the slot of another entity")
        let place = _Place(section: section.index, item: removed.position)
        return Removal(stored: stored, place: place, sectionName: name, removedSection: false)
    }
}
