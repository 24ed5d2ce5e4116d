import Foundation

extension _CollapsibleState {
    /// The changes of one section that exists before and after a change set, in the controller's
    /// coordinates: where its touched items were and are, which tell where the untouched ones are.
    @usableFromInline struct SectionPair {
        @usableFromInline let old: Int
        @usableFromInline let new: Int
        /// Positions of the deleted and moved-away items before, of the inserted and moved-in ones after.
        @usableFromInline var oldTouched: [Int] = []
        @usableFromInline var newTouched: [Int] = []

        @inlinable init(old: Int, new: Int) {
            self.old = old
            self.new = new
        }
    }

    /// The sections before and after a change set, from its section changes: the sections it neither
    /// deletes nor inserts keep their order, so each index of one side gives the other's.
    @usableFromInline struct SectionIndices {
        @usableFromInline let deleted: [Int]
        @usableFromInline let inserted: [Int]
        @usableFromInline let deletedCuts: [Int]
        @usableFromInline let insertedCuts: [Int]

        @inlinable init(_ changes: ChangeSet<Entity>) {
            (deleted, inserted) = (changes.deletedSections, changes.insertedSections)
            (deletedCuts, insertedCuts) = (Self.cuts(deleted), Self.cuts(inserted))
        }

        /// For each position of `touched` (ascending), how many untouched positions come before it.
        @inlinable static func cuts(_ touched: [Int]) -> [Int] {
            touched.enumerated().map { rank, position in position - rank }
        }

        /// The position of the untouched element of rank `rank`, given the cuts of the touched ones.
        @inlinable static func position(ofUntouched rank: Int, cuts: [Int]) -> Int {
            rank + _BatchDiff<Entity>._SectionMoves.count(of: cuts, notAbove: rank)
        }

        /// The rank among the untouched elements of the untouched one at `position`.
        @inlinable static func rank(ofUntouchedAt position: Int, touched: [Int]) -> Int {
            position - _BatchDiff<Entity>._SectionMoves.count(of: touched, notAbove: position - 1)
        }

        /// The new index of the old section at `old`, or `nil` if it was deleted.
        @inlinable func new(ofOld old: Int) -> Int? {
            let earlier = _BatchDiff<Entity>._SectionMoves.count(of: deleted, notAbove: old)
            guard earlier == 0 || deleted[earlier - 1] != old else { return nil }
            return Self.position(ofUntouched: old - earlier, cuts: insertedCuts)
        }

        /// The old index of the new section at `new`, or `nil` if it was inserted.
        @inlinable func old(ofNew new: Int) -> Int? {
            let earlier = _BatchDiff<Entity>._SectionMoves.count(of: inserted, notAbove: new)
            guard earlier == 0 || inserted[earlier - 1] != new else { return nil }
            return Self.position(ofUntouched: new - earlier, cuts: deletedCuts)
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
