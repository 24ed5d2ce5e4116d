import Foundation

/// A window's change set from its controller's: what entered and left the window's positions, whatever
/// moved it, and the moves among what stayed.
///
/// The window is never listed. The controller's change set names what it removed (with old positions) and
/// added (with new ones); every other entity is *untouched*: it kept its section and its order relative to
/// the other untouched entities, so the untouched entities have one rank in both orders, and a rank maps to
/// an old and a new position monotonically (see ``_GlobalChanges/oldPosition(ofUntouched:)``). What enters
/// or leaves a window is then the change set's own entities in its old or new positions, and a run of
/// untouched ranks at each edge; and moves are minimal among the few entities the change set moved inside
/// the window and the runs of untouched ones between them.
@usableFromInline enum _WindowDiff {
    /// The change set of the window that held `old` positions before `changes` and holds `new` positions of
    /// `storage` after them; empty when its contents did not change.
    ///
    /// - Complexity: O(log *k*) for a window that the change set does not change; O(*k*′ log *n*) for one it
    ///   changes only in content (*k*′ entities); otherwise O((*k* + *w*) log *n* + *s* log *k*) for *w* entities
    ///   that enter or leave it and *s* sections it spans, whatever its size (a window pays for its size only
    ///   through *s*, when its entities have sections of their own).
    @inlinable static func changeSet<Entity>(
        _ changes: _GlobalChanges<Entity>, from old: Range<Int>, to new: Range<Int>,
        in storage: _SectionedStorage<Entity>
    ) -> ChangeSet<Entity> {
        let removedBefore = (changes.removedCount(before: old.lowerBound), changes.removedCount(before: old.upperBound))
        let addedBefore = (changes.addedCount(before: new.lowerBound), changes.addedCount(before: new.upperBound))
        let keepsItsEntities =
            removedBefore.0 == removedBefore.1 && addedBefore.0 == addedBefore.1
            && old.lowerBound - removedBefore.0 == new.lowerBound - addedBefore.0
            && old.upperBound - removedBefore.1 == new.upperBound - addedBefore.1
        if keepsItsEntities {
            return contentChanges(changes, in: new, of: storage)
        }
        let shift = _WindowShift(
            changes, from: old, to: new, removed: removedBefore.0..<removedBefore.1,
            added: addedBefore.0..<addedBefore.1,
            in: storage)
        return shift.changeSet()
    }

    /// The updates of a window whose entities stay where they were.
    @inlinable static func contentChanges<Entity>(
        _ changes: _GlobalChanges<Entity>, in window: Range<Int>, of storage: _SectionedStorage<Entity>
    ) -> ChangeSet<Entity> {
        let first = changes.updated.partitioningIndex { $0 >= window.lowerBound }
        let end = changes.updated.partitioningIndex { $0 >= window.upperBound }
        var result = ChangeSet<Entity>()
        guard first < end else { return result }
        let slice = _WindowSlice(window, in: storage)
        for index in first..<end {
            let path = storage.indexPath(atGlobalIndex: changes.updated[index])
            result.updatedItems.append(slice.windowIndexPath(of: path)!)
            result.updatedItemIDs.append(changes.updatedIDs[index])
        }
        return result
    }
}
