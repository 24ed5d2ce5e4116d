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
        let sectionsDeleted = deletedSections.sorted { $0.index < $1.index }
        changes.deletedSections = sectionsDeleted.map(\.index)
        changes.deletedSectionNames = sectionsDeleted.map(\.name)
        let sectionsInserted = insertedSections.sorted { $0.index < $1.index }
        changes.insertedSections = sectionsInserted.map(\.index)
        changes.insertedSectionNames = sectionsInserted.map(\.name)
        let sectionsUpdated = updatedSections.sorted { $0.index < $1.index }
        changes.updatedSections = sectionsUpdated.map(\.index)
        changes.updatedSectionNames = sectionsUpdated.map(\.name)
        (changes.deletedItems, changes.deletedItemIDs) = Self.sorted(deletedItems)
        (changes.insertedItems, changes.insertedItemIDs) = Self.sorted(insertedItems)
        (changes.updatedItems, changes.updatedItemIDs) = Self.sorted(updatedItems)
        let moves = movedItems.sorted { $0.move.to < $1.move.to }
        changes.movedItems = moves.map(\.move)
        changes.movedItemIDs = moves.map(\.id)
        return changes
    }

    @inlinable static func sorted(_ items: [(indexPath: IndexPath, id: Entity.ID)]) -> ([IndexPath], [Entity.ID]) {
        let items = items.sorted { $0.indexPath < $1.indexPath }
        return (items.map(\.indexPath), items.map(\.id))
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
