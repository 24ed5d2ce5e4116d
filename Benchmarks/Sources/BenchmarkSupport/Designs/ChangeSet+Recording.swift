import Foundation
import LiveResults

extension ChangeSet {
    /// The number of section and item changes.
    var count: Int {
        deletedSections.count + insertedSections.count + deletedItems.count + insertedItems.count
            + movedItems.count + updatedItems.count
    }
}

/// How the baselines record their changes: each index path with its id, as LiveResults reports them.
extension ChangeSet where Entity == Row {
    mutating func recordSectionDeletion(_ section: Int, name: String) {
        deletedSections.append(section)
        deletedSectionNames.append(name)
    }

    mutating func recordSectionInsertion(_ section: Int, name: String) {
        insertedSections.append(section)
        insertedSectionNames.append(name)
    }

    mutating func recordDeletion(at indexPath: IndexPath, id: Int) {
        deletedItems.append(indexPath)
        deletedItemIDs.append(id)
    }

    mutating func recordInsertion(at indexPath: IndexPath, id: Int) {
        insertedItems.append(indexPath)
        insertedItemIDs.append(id)
    }

    mutating func recordMove(from source: IndexPath, to destination: IndexPath, id: Int) {
        movedItems.append(ItemMove(from: source, to: destination))
        movedItemIDs.append(id)
    }

    mutating func recordUpdate(at indexPath: IndexPath, id: Int) {
        updatedItems.append(indexPath)
        updatedItemIDs.append(id)
    }
}
