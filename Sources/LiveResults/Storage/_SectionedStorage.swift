import Foundation

/// The entities in display order: sorted sections of sorted items, plus an id table.
///
/// This is the storage boundary. Positions are found by binary search with the ordering rule, never by
/// scanning; an insert or removal costs one binary search over the sections, one inside the section
/// and one array insert or removal.
struct _SectionedStorage<Entity: FetchableEntity>: Sendable {
    struct Section: Sendable {
        var name: String
        var items: [_StoredEntity<Entity>]
    }

    private(set) var sections: [Section] = []
    /// The current version of every entity, by id.
    private(set) var entries: [Entity.ID: _StoredEntity<Entity>] = [:]
    private(set) var ordering: _EntityOrdering<Entity>

    /// Creates an empty storage.
    init(ordering: _EntityOrdering<Entity>) {
        self.ordering = ordering
    }

    /// Creates a storage holding `stored`, whose ids must be unique.
    ///
    /// - Complexity: O(*n* log *n*) comparisons.
    init(ordering: _EntityOrdering<Entity>, contents stored: [_StoredEntity<Entity>]) {
        self.ordering = ordering
        var groups: [String: [_StoredEntity<Entity>]] = [:]
        entries.reserveCapacity(stored.count)
        for item in stored {
            groups[ordering.sectionName(item.entity), default: []].append(item)
            entries[item.entity.id] = item
        }
        sections = groups.map { Section(name: $0.key, items: $0.value.sorted(by: ordering.precedes)) }
        sections.sort { ordering.sectionOrder.areInIncreasingOrder($0.name, $1.name) }
    }

    var count: Int { entries.count }

    /// Every stored entity, for rebuilding with another order.
    var allStored: [_StoredEntity<Entity>] { sections.flatMap(\.items) }

    func stored(forID id: Entity.ID) -> _StoredEntity<Entity>? {
        entries[id]
    }

    subscript(indexPath: IndexPath) -> _StoredEntity<Entity> {
        sections[indexPath[0]].items[indexPath[1]]
    }

    /// Where a section with this name is, or would be inserted.
    ///
    /// - Complexity: O(log *s*) name comparisons for *s* sections.
    func sectionIndex(named name: String) -> (index: Int, found: Bool) {
        var low = 0
        var high = sections.count
        while low < high {
            let middle = (low + high) / 2
            if ordering.sectionOrder.areInIncreasingOrder(sections[middle].name, name) {
                low = middle + 1
            } else {
                high = middle
            }
        }
        return (low, low < sections.count && sections[low].name == name)
    }

    /// Where `stored` is, or would be inserted, inside the section at `sectionIndex`.
    private func itemIndex(of stored: _StoredEntity<Entity>, inSection sectionIndex: Int) -> Int {
        let items = sections[sectionIndex].items
        var low = 0
        var high = items.count
        while low < high {
            let middle = (low + high) / 2
            if ordering.precedes(items[middle], stored) {
                low = middle + 1
            } else {
                high = middle
            }
        }
        return low
    }

    /// The index path of the entity with this id.
    ///
    /// - Complexity: O(log *n*) comparisons.
    func indexPath(forID id: Entity.ID) -> IndexPath? {
        guard let stored = entries[id] else { return nil }
        let section = sectionIndex(named: ordering.sectionName(stored.entity))
        assert(section.found, "a stored entity's section exists")
        return IndexPath(indexes: [section.index, itemIndex(of: stored, inSection: section.index)])
    }

    /// Inserts an entity whose id is not stored yet.
    ///
    /// - Complexity: O(log *n*) comparisons and one array insertion.
    mutating func insert(_ stored: _StoredEntity<Entity>) {
        assert(entries[stored.entity.id] == nil, "insert of a stored id")
        let name = ordering.sectionName(stored.entity)
        let section = sectionIndex(named: name)
        if !section.found {
            sections.insert(Section(name: name, items: [stored]), at: section.index)
        } else {
            let item = itemIndex(of: stored, inSection: section.index)
            sections[section.index].items.insert(stored, at: item)
        }
        entries[stored.entity.id] = stored
    }

    /// Removes the entity with this id, dropping its section when it becomes empty.
    ///
    /// - Returns: The removed entity, or `nil` if the id is not stored.
    /// - Complexity: O(log *n*) comparisons and one array removal.
    @discardableResult
    mutating func remove(id: Entity.ID) -> _StoredEntity<Entity>? {
        guard let indexPath = indexPath(forID: id) else { return nil }
        let removed = sections[indexPath[0]].items.remove(at: indexPath[1])
        if sections[indexPath[0]].items.isEmpty {
            sections.remove(at: indexPath[0])
        }
        entries[id] = nil
        return removed
    }

    /// Replaces an entity by a new version that has the same position (see
    /// ``_EntityOrdering/hasSamePosition(_:_:oldSection:)``).
    ///
    /// - Complexity: O(log *n*) comparisons.
    mutating func replaceInPlace(_ entity: Entity) {
        guard let indexPath = indexPath(forID: entity.id) else {
            preconditionFailure("replaceInPlace of an id that is not stored")
        }
        sections[indexPath[0]].items[indexPath[1]].entity = entity
        entries[entity.id]?.entity = entity
    }
}
