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

        /// For each touched position in ascending order, how many untouched items come before it.
        @inlinable static func cuts(_ touched: [Int]) -> [Int] {
            touched.enumerated().map { rank, position in position - rank }
        }

        /// The position of the untouched item of rank `rank` (in order), given the cuts of the touched ones.
        @inlinable static func position(ofUntouched rank: Int, cuts: [Int]) -> Int {
            rank + _BatchDiff<Entity>._SectionMoves.count(of: cuts, notAbove: rank)
        }

        /// The rank among the untouched items of the untouched item at `position`, given the touched
        /// positions, ascending.
        @inlinable static func rank(ofUntouchedAt position: Int, touched: [Int]) -> Int {
            position - _BatchDiff<Entity>._SectionMoves.count(of: touched, notAbove: position - 1)
        }
    }

    /// Takes the controller's next results: the change set that turns the view's display of its current
    /// results into its display of `new`, when `changes` turns the one into the other.
    ///
    /// An item that enters or leaves the displayed part of a section is an insert or a delete there, and
    /// a section whose number of hidden items changes is updated. Items the change set does not name keep
    /// their order, so the items that cross the end of the displayed part are found from the positions
    /// the change set names, without a look at the rest of the section.
    ///
    /// - Complexity: O(*k* log *n*) for the *k* changes, plus O(*c* log *n*) for *c* items that enter or
    ///   leave the displayed part of a section.
    @inlinable mutating func take(
        _ new: FetchedResultsSnapshot<Entity>, changes: ChangeSet<Entity>
    ) -> ChangeSet<Entity> {
        let old = snapshot
        snapshot = new
        var builder = _ChangeSetBuilder<Entity>()
        for (index, name) in zip(changes.deletedSections, changes.deletedSectionNames) {
            builder.deleteSection(index, name: name)
        }
        for (index, name) in zip(changes.insertedSections, changes.insertedSectionNames) {
            builder.insertSection(index, name: name)
        }
        var pairs: [String: SectionPair] = [:]
        var shownOld: [Int: Int] = [:]
        var shownNew: [Int: Int] = [:]
        /// The name of the section at one of the two indices, if it exists before and after.
        func pair(old oldIndex: Int?, new newIndex: Int?) -> String? {
            let name = oldIndex.map { old.sections[$0].name } ?? new.sections[newIndex!].name
            guard pairs[name] == nil else { return name }
            func index(in snapshot: FetchedResultsSnapshot<Entity>) -> Int? {
                let (index, found) = snapshot._storage.sectionIndex(named: name)
                return found ? index : nil
            }
            guard let oldIndex = oldIndex ?? index(in: old), let newIndex = newIndex ?? index(in: new) else {
                return nil
            }
            pairs[name] = SectionPair(old: oldIndex, new: newIndex)
            return name
        }
        func displayed(old index: Int) -> Int {
            if let count = shownOld[index] { return count }
            let count = displayedCount(ofSection: index, in: old)
            shownOld[index] = count
            return count
        }
        func displayed(new index: Int) -> Int {
            if let count = shownNew[index] { return count }
            let count = displayedCount(ofSection: index, in: new)
            shownNew[index] = count
            return count
        }
        // What the change set names, grouped by section.
        for indexPath in changes.deletedItems {
            if let name = pair(old: indexPath[0], new: nil) { pairs[name]!.oldTouched.append(indexPath[1]) }
        }
        for move in changes.movedItems {
            if let name = pair(old: move.from[0], new: nil) { pairs[name]!.oldTouched.append(move.from[1]) }
            if let name = pair(old: nil, new: move.to[0]) { pairs[name]!.newTouched.append(move.to[1]) }
        }
        for indexPath in changes.insertedItems {
            if let name = pair(old: nil, new: indexPath[0]) { pairs[name]!.newTouched.append(indexPath[1]) }
        }
        for indexPath in changes.updatedItems { _ = pair(old: nil, new: indexPath[0]) }
        // Items the change set names: shown before, after, both or neither.
        var displayedOld: [Int: [(item: Int, id: Entity.ID)]] = [:]
        var displayedNew: [Int: [(item: Int, id: Entity.ID)]] = [:]
        var stayed: [Int: [(id: Entity.ID, oldItem: Int, newItem: Int)]] = [:]
        for (indexPath, id) in zip(changes.deletedItems, changes.deletedItemIDs)
        where indexPath[1] < displayed(old: indexPath[0]) {
            builder.delete(id, at: indexPath)
            displayedOld[indexPath[0], default: []].append((indexPath[1], id))
        }
        for (indexPath, id) in zip(changes.insertedItems, changes.insertedItemIDs)
        where indexPath[1] < displayed(new: indexPath[0]) {
            builder.insert(id, at: indexPath)
            displayedNew[indexPath[0], default: []].append((indexPath[1], id))
        }
        var movedFrom: [Entity.ID: IndexPath] = [:]
        for (move, id) in zip(changes.movedItems, changes.movedItemIDs) {
            movedFrom[id] = move.from
            let wasShown = move.from[1] < displayed(old: move.from[0])
            let isShown = move.to[1] < displayed(new: move.to[0])
            if wasShown { displayedOld[move.from[0], default: []].append((move.from[1], id)) }
            if isShown { displayedNew[move.to[0], default: []].append((move.to[1], id)) }
            switch (wasShown, isShown) {
            case (true, true) where old.sections[move.from[0]].name == new.sections[move.to[0]].name:
                stayed[move.to[0], default: []].append((id, move.from[1], move.to[1]))
            case (true, true): builder.move(id, from: move.from, to: move.to)
            case (true, false): builder.delete(id, at: move.from)
            case (false, true): builder.insert(id, at: move.to)
            case (false, false): break
            }
        }
        // Sections that exist before and after: the untouched items that cross the end of the displayed
        // part, the moves among the displayed items, and the updates of displayed items.
        var untouchedByNewSection: [Int: (oldCuts: [Int], newTouched: [Int], shown: Int)] = [:]
        for (name, pair) in pairs {
            let (oldTouched, newTouched) = (pair.oldTouched.sorted(), pair.newTouched.sorted())
            let (oldCuts, newCuts) = (SectionPair.cuts(oldTouched), SectionPair.cuts(newTouched))
            let (shown, nowShown) = (displayed(old: pair.old), displayed(new: pair.new))
            untouchedByNewSection[pair.new] = (oldCuts, newTouched, shown)
            let untouchedShown = shown - oldTouched.count { $0 < shown }
            let untouchedNowShown = nowShown - newTouched.count { $0 < nowShown }
            for rank in Swift.min(untouchedShown, untouchedNowShown)..<Swift.max(untouchedShown, untouchedNowShown) {
                if untouchedNowShown > untouchedShown {
                    let item = SectionPair.position(ofUntouched: rank, cuts: newCuts)
                    let id = new.sections[pair.new].objects[item].id
                    builder.insert(id, at: IndexPath(_section: pair.new, item: item))
                    displayedNew[pair.new, default: []].append((item, id))
                } else {
                    let item = SectionPair.position(ofUntouched: rank, cuts: oldCuts)
                    let id = old.sections[pair.old].objects[item].id
                    builder.delete(id, at: IndexPath(_section: pair.old, item: item))
                    displayedOld[pair.old, default: []].append((item, id))
                }
            }
            if let stayed = stayed[pair.new] {
                let touched = _BatchDiff<Entity>.TouchedSection(
                    oldIndex: pair.old, old: displayedOld[pair.old] ?? [], new: displayedNew[pair.new] ?? [],
                    stayed: stayed)
                let untouchedCount = nowShown - touched.new.count
                _BatchDiff<Entity>._SectionMoves(touched, untouchedCount: untouchedCount)
                    .report(oldSection: pair.old, newSection: pair.new, storage: new._storage, into: &builder)
            }
            let (count, newCount) = (old.sections[pair.old].numberOfObjects, new.sections[pair.new].numberOfObjects)
            if count - shown != newCount - nowShown { builder.updateSection(pair.new, name: name) }
        }
        for (indexPath, id) in zip(changes.updatedItems, changes.updatedItemIDs)
        where indexPath[1] < displayed(new: indexPath[0]) {
            let wasShown: Bool
            if let from = movedFrom[id] {
                wasShown = from[1] < displayed(old: from[0])
            } else if let untouched = untouchedByNewSection[indexPath[0]] {
                // Not moved: its rank among the untouched items is the same before and after.
                let rank = SectionPair.rank(ofUntouchedAt: indexPath[1], touched: untouched.newTouched)
                wasShown = SectionPair.position(ofUntouched: rank, cuts: untouched.oldCuts) < untouched.shown
            } else {
                wasShown = false
            }
            if wasShown { builder.update(id, at: indexPath) }
        }
        return builder.build()
    }
}
