/// The change set of a batch of one event, read off the places the event touched.
///
/// With one entity repositioned and every other entity keeping its relative order, the minimal moves
/// are at most one: the entity itself, unless it kept its index inside the same section. (Moving the
/// untouched entities it jumped over instead is never fewer moves, and among equal counts the changed
/// entity is the one that moves.) This is what ``_BatchDiff`` finds for a batch of one, in O(1) beyond
/// the event itself.
@usableFromInline enum _SingleEventDiff {
    @inlinable static func changeSet<Entity>(
        of outcome: _EventOutcome<Entity>,
        id: Entity.ID,
        in storage: _SectionedStorage<Entity>
    ) -> ChangeSet<Entity> {
        var changes = ChangeSet<Entity>()
        switch outcome {
        case .unchanged:
            break
        case .updatedInPlace(let stored, let name):
            changes.reportUpdate(of: id, at: storage.place(of: stored, inSection: name))
        case .inserted(let insertion):
            changes.reportInsertion(of: id, insertion)
        case .removed(let removal):
            changes.reportRemoval(of: id, removal)
        case .moved(let removal, let insertion):
            if removal.sectionName != insertion.sectionName {
                if removal.removedSection {
                    (changes.deletedSections, changes.deletedSectionNames) = (
                        [removal.place.section], [removal.sectionName]
                    )
                }
                if insertion.insertedSection {
                    (changes.insertedSections, changes.insertedSectionNames) = (
                        [insertion.place.section], [insertion.sectionName]
                    )
                }
            }
            if removal.place != insertion.place || removal.sectionName != insertion.sectionName {
                changes.movedItems = [ItemMove(from: removal.place.indexPath, to: insertion.place.indexPath)]
                changes.movedItemIDs = [id]
            }
            changes.reportUpdate(of: id, at: insertion.place)
        }
        return changes
    }
}

extension ChangeSet {
    @inlinable mutating func reportUpdate(of id: Entity.ID, at place: _Place) {
        (updatedItems, updatedItemIDs) = ([place.indexPath], [id])
    }

    @inlinable mutating func reportInsertion(of id: Entity.ID, _ insertion: _SectionedStorage<Entity>.Insertion) {
        if insertion.insertedSection {
            (insertedSections, insertedSectionNames) = ([insertion.place.section], [insertion.sectionName])
        }
        (insertedItems, insertedItemIDs) = ([insertion.place.indexPath], [id])
    }

    @inlinable mutating func reportRemoval(of id: Entity.ID, _ removal: _SectionedStorage<Entity>.Removal) {
        if removal.removedSection {
            (deletedSections, deletedSectionNames) = ([removal.place.section], [removal.sectionName])
        }
        (deletedItems, deletedItemIDs) = ([removal.place.indexPath], [id])
    }
}
