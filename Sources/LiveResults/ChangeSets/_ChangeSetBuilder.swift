import Foundation

/// Collects changes in any order and produces a ``ChangeSet`` with every array sorted as the contract says.
@usableFromInline struct _ChangeSetBuilder<Entity: FetchableEntity> {
    @usableFromInline var deletedSections: [(index: Int, name: String)] = []
    @usableFromInline var insertedSections: [(index: Int, name: String)] = []
    @usableFromInline var updatedSections: [(index: Int, name: String)] = []
    @usableFromInline var deletedItems: [(indexPath: IndexPath, id: Entity.ID)] = []
    @usableFromInline var insertedItems: [(indexPath: IndexPath, id: Entity.ID)] = []
    @usableFromInline var movedItems: [(move: ItemMove, id: Entity.ID)] = []
    @usableFromInline var updatedItems: [(indexPath: IndexPath, id: Entity.ID)] = []

    @inlinable mutating func deleteSection(_ index: Int, name: String) { deletedSections.append((index, name)) }
    @inlinable mutating func insertSection(_ index: Int, name: String) { insertedSections.append((index, name)) }
    @inlinable mutating func updateSection(_ index: Int, name: String) { updatedSections.append((index, name)) }
    @inlinable mutating func delete(_ id: Entity.ID, at indexPath: IndexPath) { deletedItems.append((indexPath, id)) }
    @inlinable mutating func insert(_ id: Entity.ID, at indexPath: IndexPath) { insertedItems.append((indexPath, id)) }
    @inlinable mutating func update(_ id: Entity.ID, at indexPath: IndexPath) { updatedItems.append((indexPath, id)) }
    @inlinable mutating func move(_ id: Entity.ID, from: IndexPath, to: IndexPath) {
        movedItems.append((ItemMove(from: from, to: to), id))
    }

    /// The change set, every array ascending (moves by their destination).
    ///
    /// - Complexity: O(*c* log *c*) for *c* changes.
    @inlinable func build() -> ChangeSet<Entity> {
        var changes = ChangeSet<Entity>()
        (changes.deletedSections, changes.deletedSectionNames) = Self.split(deletedSections) { $0.0 }
        (changes.insertedSections, changes.insertedSectionNames) = Self.split(insertedSections) { $0.0 }
        (changes.updatedSections, changes.updatedSectionNames) = Self.split(updatedSections) { $0.0 }
        (changes.deletedItems, changes.deletedItemIDs) = Self.split(deletedItems) { Self.key($0.0) }
        (changes.insertedItems, changes.insertedItemIDs) = Self.split(insertedItems) { Self.key($0.0) }
        (changes.updatedItems, changes.updatedItemIDs) = Self.split(updatedItems) { Self.key($0.0) }
        (changes.movedItems, changes.movedItemIDs) = Self.split(movedItems) { Self.key($0.0.to) }
        return changes
    }

    /// An index path's section and item as one integer that sorts as the index path does, for the positions a
    /// change set holds (both below 2³²). Comparing `IndexPath`s themselves, through their general storage, made
    /// most of the cost of sorting a batch's changes.
    @inlinable static func key(_ indexPath: IndexPath) -> Int {
        indexPath[0] << 32 | indexPath[1]
    }

    /// The pairs `items` sorted by the integer `key` gives each, as two
    /// parallel arrays. Empty and one-element lists, which most change sets of single events have, are neither
    /// copied nor sorted.
    @inlinable static func split<First, Second>(
        _ items: [(First, Second)], by key: ((First, Second)) -> Int
    ) -> ([First], [Second]) {
        switch items.count {
        case 0: return ([], [])
        case 1: return ([items[0].0], [items[0].1])
        default:
            var order = items.indices.map { (key: key(items[$0]), offset: $0) }
            // Ties (none in a well-formed change set) keep the order they were reported in, as a stable sort would.
            order.sort { ($0.key, $0.offset) < ($1.key, $1.offset) }
            return (order.map { items[$0.offset].0 }, order.map { items[$0.offset].1 })
        }
    }

    @usableFromInline
    init(
        deletedSections: [(index: Int, name: String)] = [], insertedSections: [(index: Int, name: String)] = [],
        deletedItems: [(indexPath: IndexPath, id: Entity.ID)] = [],
        insertedItems: [(indexPath: IndexPath, id: Entity.ID)] = [], movedItems: [(move: ItemMove, id: Entity.ID)] = [],
        updatedItems: [(indexPath: IndexPath, id: Entity.ID)] = []
    ) {
        self.deletedSections = deletedSections
        self.insertedSections = insertedSections
        self.deletedItems = deletedItems
        self.insertedItems = insertedItems
        self.movedItems = movedItems
        self.updatedItems = updatedItems
    }
}
