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
        if let display = displayedSingleChange(changes, after: new) { return display }
        if expandsEverySection(touchedBy: changes, in: new) { return changes }
        var diff = _DisplayDiff(changes, after: new)
        return diff.run(presenting: &self)
    }

    /// Whether every section `changes` touches is expanded: they display all their items before and after,
    /// so the display's change set is the controller's (what ``_DisplayDiff`` finds too, at a greater cost:
    /// it collects the touched positions of each section into arrays of their own).
    ///
    /// It asks for the presentation of the same sections as ``_DisplayDiff`` does (each name is asked
    /// for once, whichever way is taken), and allocates nothing.
    ///
    /// - Complexity: O(*k* log *n*) for the *k* changes (one section lookup per section the change set
    ///   names, for consecutive index paths in the same section once).
    @inlinable mutating func expandsEverySection(
        touchedBy changes: ChangeSet<Entity>, in new: _SectionedStorage<Entity>
    ) -> Bool {
        for name in changes.deletedSectionNames where presentation(of: name).isCollapsed { return false }
        for name in changes.insertedSectionNames where presentation(of: name).isCollapsed { return false }
        let indices = SectionIndices(changes)
        // The last section found expanded, in new coordinates: the arrays are sorted, so index paths in one
        // section mostly follow one another.
        var expanded = -1
        for path in changes.insertedItems where !isExpanded(path[0], in: new, after: &expanded) { return false }
        for path in changes.updatedItems where !isExpanded(path[0], in: new, after: &expanded) { return false }
        for move in changes.movedItems {
            guard isExpanded(move.to[0], in: new, after: &expanded),
                isExpanded(indices.new(ofOld: move.from[0]), in: new, after: &expanded)
            else { return false }
        }
        for path in changes.deletedItems where !isExpanded(indices.new(ofOld: path[0]), in: new, after: &expanded) {
            return false
        }
        return true
    }

    /// Whether the section at the new index `section` of `new` is expanded; `nil` (an old section that is
    /// gone, one of the change set's `deletedSections`) counts as expanded, as does `expanded`, the last
    /// section found so, which becomes `section` when it is.
    @inlinable mutating func isExpanded(
        _ section: Int?, in new: _SectionedStorage<Entity>, after expanded: inout Int
    ) -> Bool {
        guard let section, section != expanded else { return true }
        guard showing(ofNew: section, new) == .all else { return false }
        expanded = section
        return true
    }
}
