import Foundation

extension _CollapsibleState {
    /// The sections before and after a change set, from its section changes: the sections it neither
    /// deletes nor inserts keep their order, so each index of one side gives the other's.
    @usableFromInline struct SectionIndices {
        @usableFromInline let deleted: [Int]
        @usableFromInline let inserted: [Int]

        @inlinable init(_ changes: ChangeSet<Entity>) {
            (deleted, inserted) = (changes.deletedSections, changes.insertedSections)
        }

        /// The new index of the old section at `old`, or `nil` if it was deleted.
        @inlinable func new(ofOld old: Int) -> Int? {
            let earlier = _BatchDiff<Entity>._SectionMoves.count(of: deleted, notAbove: old)
            guard earlier == 0 || deleted[earlier - 1] != old else { return nil }
            return _DisplayDiff<Entity>.position(ofUntouched: old - earlier, among: inserted)
        }

        /// The old index of the new section at `new`, or `nil` if it was inserted.
        @inlinable func old(ofNew new: Int) -> Int? {
            let earlier = _BatchDiff<Entity>._SectionMoves.count(of: inserted, notAbove: new)
            guard earlier == 0 || inserted[earlier - 1] != new else { return nil }
            return _DisplayDiff<Entity>.position(ofUntouched: new - earlier, among: deleted)
        }
    }

    /// Takes the controller's change set `changes`, whose results are now `new`: the change set of what
    /// the view displays.
    ///
    /// An item that enters or leaves the displayed part of a section is an insert or a delete there, and
    /// a section whose collapsed state or number of hidden items changes is updated. Items the change set
    /// does not name keep their order, so what the view displayed before, and the items that cross the end
    /// of the displayed part, are found from the positions the change set names and from `new`, without
    /// the results before it and without a look at the rest of a section.
    ///
    /// - Complexity: O(*k* log *n*) for the *k* changes, plus O(*c* log *n*) for *c* items that enter or
    ///   leave the displayed part of a section.
    @inlinable mutating func take(_ changes: ChangeSet<Entity>, after new: _SectionedStorage<Entity>) -> ChangeSet<
        Entity
    > {
        var diff = _DisplayDiff(changes, after: new)
        return diff.run(presenting: &self)
    }
}
