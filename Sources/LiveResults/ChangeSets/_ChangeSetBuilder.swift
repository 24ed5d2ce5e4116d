import Foundation

/// Collects changes in any order and produces a ``ChangeSet`` with every array sorted as the contract says.
struct _ChangeSetBuilder<Entity: FetchableEntity> {
    private var deletedSections: [(index: Int, name: String)] = []
    private var insertedSections: [(index: Int, name: String)] = []
    private var deletedItems: [(indexPath: IndexPath, id: Entity.ID)] = []
    private var insertedItems: [(indexPath: IndexPath, id: Entity.ID)] = []
    private var movedItems: [(move: ItemMove, id: Entity.ID)] = []
    private var updatedItems: [(indexPath: IndexPath, id: Entity.ID)] = []

    mutating func deleteSection(_ index: Int, name: String) { deletedSections.append((index, name)) }
    mutating func insertSection(_ index: Int, name: String) { insertedSections.append((index, name)) }
    mutating func delete(_ id: Entity.ID, at indexPath: IndexPath) { deletedItems.append((indexPath, id)) }
    mutating func insert(_ id: Entity.ID, at indexPath: IndexPath) { insertedItems.append((indexPath, id)) }
    mutating func update(_ id: Entity.ID, at indexPath: IndexPath) { updatedItems.append((indexPath, id)) }
    mutating func move(_ id: Entity.ID, from: IndexPath, to: IndexPath) {
        movedItems.append((ItemMove(from: from, to: to), id))
    }

    /// The change set, every array ascending (moves by their destination).
    ///
    /// - Complexity: O(*c* log *c*) for *c* changes.
    func build() -> ChangeSet<Entity> {
        var changes = ChangeSet<Entity>()
        let sectionsDeleted = deletedSections.sorted { $0.index < $1.index }
        changes.deletedSections = sectionsDeleted.map(\.index)
        changes.deletedSectionNames = sectionsDeleted.map(\.name)
        let sectionsInserted = insertedSections.sorted { $0.index < $1.index }
        changes.insertedSections = sectionsInserted.map(\.index)
        changes.insertedSectionNames = sectionsInserted.map(\.name)
        (changes.deletedItems, changes.deletedItemIDs) = Self.sorted(deletedItems)
        (changes.insertedItems, changes.insertedItemIDs) = Self.sorted(insertedItems)
        (changes.updatedItems, changes.updatedItemIDs) = Self.sorted(updatedItems)
        let moves = movedItems.sorted { $0.move.to < $1.move.to }
        changes.movedItems = moves.map(\.move)
        changes.movedItemIDs = moves.map(\.id)
        return changes
    }

    private static func sorted(_ items: [(indexPath: IndexPath, id: Entity.ID)]) -> ([IndexPath], [Entity.ID]) {
        let items = items.sorted { $0.indexPath < $1.indexPath }
        return (items.map(\.indexPath), items.map(\.id))
    }
}
