import Foundation

/// The change set of what a ``CollapsibleSections`` view displays, from a change set of its controller
/// and the controller's results after it (see ``_CollapsibleState/take(_:changes:)``).
///
/// A section displays a prefix of its items, so display coordinates are the controller's. Items the
/// change set does not name keep their order; in a section that exists before and after, their positions
/// before and after follow from the positions the change set names there (its *touched* positions).
@usableFromInline struct _DisplayDiff<Entity: FetchableEntity> {
    /// What the change set touches in one section that exists before and after, and how many items the
    /// section displays before and after.
    @usableFromInline struct Section {
        @usableFromInline let old: Int
        @usableFromInline let new: Int
        /// Positions of the deleted and moved-away items before, of the inserted and moved-in ones after,
        /// ascending.
        @usableFromInline var oldTouched: [Int]
        @usableFromInline var newTouched: [Int]
        @usableFromInline var shown = 0
        @usableFromInline var nowShown = 0
        /// The displayed items the change set touches, before and after, and those of them that stay
        /// displayed in the section: what the moves are chosen among.
        @usableFromInline var displayedOld: [(item: Int, id: Entity.ID)] = []
        @usableFromInline var displayedNew: [(item: Int, id: Entity.ID)] = []
        @usableFromInline var stayed: [(id: Entity.ID, oldItem: Int, newItem: Int)] = []

        @inlinable init(old: Int, new: Int, oldTouched: [Int], newTouched: [Int]) {
            self.old = old
            self.new = new
            self.oldTouched = oldTouched
            self.newTouched = newTouched
        }

        /// The old position of the untouched item at the new position `item`.
        @inlinable func oldPosition(ofUntouchedAt item: Int) -> Int {
            let rank = item - _BatchDiff<Entity>._SectionMoves.count(of: newTouched, notAbove: item - 1)
            return oldPosition(ofUntouched: rank)
        }

        /// The new position of the untouched item of rank `rank`.
        @inlinable func newPosition(ofUntouched rank: Int) -> Int {
            _DisplayDiff.position(ofUntouched: rank, among: newTouched)
        }

        /// The old position of the untouched item of rank `rank`.
        @inlinable func oldPosition(ofUntouched rank: Int) -> Int {
            _DisplayDiff.position(ofUntouched: rank, among: oldTouched)
        }

        /// How many of the ascending `values` are below `limit`.
        @inlinable static func count(of values: [Int], below limit: Int) -> Int {
            _BatchDiff<Entity>._SectionMoves.count(of: values, notAbove: limit - 1)
        }
    }

    /// The position, among positions some of which are `touched` (ascending), of the untouched one of
    /// rank `rank`: `rank` plus the touched positions `touched[j]` with `touched[j] - j <= rank` (those
    /// with at most `rank` untouched positions before them).
    @inlinable static func position(ofUntouched rank: Int, among touched: [Int]) -> Int {
        var (low, high) = (0, touched.count)
        while low < high {
            let middle = (low + high) / 2
            if touched[middle] - middle <= rank { low = middle + 1 } else { high = middle }
        }
        return rank + low
    }

    @usableFromInline let changes: ChangeSet<Entity>
    @usableFromInline let new: _SectionedStorage<Entity>
    @usableFromInline let indices: _CollapsibleState<Entity>.SectionIndices
    /// The touched sections that exist before and after, ascending by new index.
    @usableFromInline var sections: [Section] = []
    /// How many items each deleted section displayed, parallel to the change set's `deletedSections`.
    @usableFromInline var shownByDeletedSection: [Int] = []
    /// Whether every section the change set touches displays all its items, before and after: the
    /// display's change set is then the controller's.
    @usableFromInline var showsEverythingTouched = true
    @usableFromInline var builder = _ChangeSetBuilder<Entity>()

    @inlinable init(_ changes: ChangeSet<Entity>, after new: _SectionedStorage<Entity>) {
        self.changes = changes
        self.new = new
        self.indices = _CollapsibleState<Entity>.SectionIndices(changes)
    }

    /// The change set of the display.
    @inlinable mutating func run(presenting state: inout _CollapsibleState<Entity>) -> ChangeSet<Entity> {
        collectSections(presenting: &state)
        guard !showsEverythingTouched else { return changes }
        for (index, name) in zip(changes.deletedSections, changes.deletedSectionNames) {
            builder.deleteSection(index, name: name)
        }
        for (index, name) in zip(changes.insertedSections, changes.insertedSectionNames) {
            builder.insertSection(index, name: name)
        }
        classifyDeletesAndInserts(presenting: &state)
        classifyMoves(presenting: &state)
        for index in sections.indices { Self.resolve(&sections[index], in: new, into: &builder) }
        classifyUpdates(presenting: &state)
        return builder.build()
    }

    /// The sections that exist before and after and that the change set touches, with their touched
    /// positions and displayed counts.
    @inlinable mutating func collectSections(presenting state: inout _CollapsibleState<Entity>) {
        var touchedNew: [Int] = []
        for path in changes.insertedItems { touchedNew.append(path[0]) }
        for move in changes.movedItems { touchedNew.append(move.to[0]) }
        for path in changes.updatedItems { touchedNew.append(path[0]) }
        for path in changes.deletedItems { if let section = indices.new(ofOld: path[0]) { touchedNew.append(section) } }
        for move in changes.movedItems {
            if let section = indices.new(ofOld: move.from[0]) { touchedNew.append(section) }
        }
        touchedNew.sort()
        let origins = changes.movedItems.map(\.from).sorted()
        var previous = -1
        for newIndex in touchedNew where newIndex != previous {
            previous = newIndex
            guard let oldIndex = indices.old(ofNew: newIndex) else { continue }
            let oldTouched = Self.merged(
                Self.items(in: oldIndex, of: changes.deletedItems), Self.items(in: oldIndex, of: origins))
            let newTouched = Self.merged(
                Self.items(in: newIndex, of: changes.insertedItems),
                Self.items(in: newIndex, of: changes.movedItems.map(\.to)))
            var section = Section(old: oldIndex, new: newIndex, oldTouched: oldTouched, newTouched: newTouched)
            let items = new.sections[newIndex].items
            let presentation = state.presentation(of: new.sections[newIndex].name)
            section.nowShown = presentation.displayedCount(of: items.count)
            let countBefore = items.count - newTouched.count + oldTouched.count
            section.shown = presentation.displayedCount(of: countBefore)
            showsEverythingTouched =
                showsEverythingTouched && section.shown == countBefore
                && section.nowShown == items.count
            sections.append(section)
        }
        for (index, name) in zip(changes.deletedSections, changes.deletedSectionNames) {
            // A deleted section: every item it had is deleted or moved away.
            let count = Self.items(in: index, of: changes.deletedItems).count + Self.items(in: index, of: origins).count
            shownByDeletedSection.append(state.presentation(of: name).displayedCount(of: count))
            showsEverythingTouched = showsEverythingTouched && shownByDeletedSection.last == count
        }
        for index in changes.insertedSections {
            showsEverythingTouched =
                showsEverythingTouched
                && state.displayedCount(ofSection: index, in: new) == new.sections[index].items.count
        }
    }

    /// The positions inside `section` of the ascending index paths `paths`.
    @inlinable static func items(in section: Int, of paths: [IndexPath]) -> [Int] {
        guard !paths.isEmpty else { return [] }
        var (low, high) = (0, paths.count)
        while low < high {
            let middle = (low + high) / 2
            if paths[middle][0] < section { low = middle + 1 } else { high = middle }
        }
        var items: [Int] = []
        while low < paths.count, paths[low][0] == section {
            items.append(paths[low][1])
            low += 1
        }
        return items
    }

    @inlinable static func merged(_ lhs: [Int], _ rhs: [Int]) -> [Int] {
        if lhs.isEmpty { return rhs }
        if rhs.isEmpty { return lhs }
        return (lhs + rhs).sorted()
    }

    /// The position in `sections` of the section at the new index `index`, if it is there.
    @inlinable func section(new index: Int) -> Int? {
        var (low, high) = (0, sections.count)
        while low < high {
            let middle = (low + high) / 2
            if sections[middle].new < index { low = middle + 1 } else { high = middle }
        }
        return low < sections.count && sections[low].new == index ? low : nil
    }

    /// How many items the section at the old index `index` displayed.
    @inlinable func displayedBefore(section index: Int) -> Int {
        if let newIndex = indices.new(ofOld: index) { return sections[section(new: newIndex)!].shown }
        let deleted = _BatchDiff<Entity>._SectionMoves.count(of: changes.deletedSections, notAbove: index - 1)
        return shownByDeletedSection[deleted]
    }

    /// How many items the section at the new index `index` displays.
    @inlinable func displayedAfter(section index: Int, presenting state: inout _CollapsibleState<Entity>) -> Int {
        if let section = section(new: index) { return sections[section].nowShown }
        return state.displayedCount(ofSection: index, in: new)
    }

    @inlinable mutating func classifyDeletesAndInserts(presenting state: inout _CollapsibleState<Entity>) {
        for (path, id) in zip(changes.deletedItems, changes.deletedItemIDs)
        where path[1] < displayedBefore(section: path[0]) {
            builder.delete(id, at: path)
            if let newIndex = indices.new(ofOld: path[0]), let section = section(new: newIndex) {
                sections[section].displayedOld.append((path[1], id))
            }
        }
        for (path, id) in zip(changes.insertedItems, changes.insertedItemIDs)
        where path[1] < displayedAfter(section: path[0], presenting: &state) {
            builder.insert(id, at: path)
            if let section = section(new: path[0]) { sections[section].displayedNew.append((path[1], id)) }
        }
    }

    @inlinable mutating func classifyMoves(presenting state: inout _CollapsibleState<Entity>) {
        for (move, id) in zip(changes.movedItems, changes.movedItemIDs) {
            let wasShown = move.from[1] < displayedBefore(section: move.from[0])
            let isShown = move.to[1] < displayedAfter(section: move.to[0], presenting: &state)
            let origin = indices.new(ofOld: move.from[0]).flatMap(section(new:))
            let target = section(new: move.to[0])
            if wasShown, let origin { sections[origin].displayedOld.append((move.from[1], id)) }
            if isShown, let target { sections[target].displayedNew.append((move.to[1], id)) }
            switch (wasShown, isShown) {
            case (true, true) where origin != nil && origin == target:
                sections[target!].stayed.append((id, move.from[1], move.to[1]))
            case (true, true): builder.move(id, from: move.from, to: move.to)
            case (true, false): builder.delete(id, at: move.from)
            case (false, true): builder.insert(id, at: move.to)
            case (false, false): break
            }
        }
    }

    /// The untouched items of a section that cross the end of its displayed part, the moves among its
    /// displayed items, and whether its hidden items changed.
    @inlinable static func resolve(
        _ section: inout Section, in new: _SectionedStorage<Entity>, into builder: inout _ChangeSetBuilder<Entity>
    ) {
        let untouchedShown = section.shown - Section.count(of: section.oldTouched, below: section.shown)
        let untouchedNowShown = section.nowShown - Section.count(of: section.newTouched, below: section.nowShown)
        let items = new.sections[section.new].items
        for rank in Swift.min(untouchedShown, untouchedNowShown)..<Swift.max(untouchedShown, untouchedNowShown) {
            // An untouched item is in the new results too: its id is read there.
            let id = items[section.newPosition(ofUntouched: rank)].id
            if untouchedNowShown > untouchedShown {
                let item = section.newPosition(ofUntouched: rank)
                builder.insert(id, at: IndexPath(_section: section.new, item: item))
                section.displayedNew.append((item, id))
            } else {
                let item = section.oldPosition(ofUntouched: rank)
                builder.delete(id, at: IndexPath(_section: section.old, item: item))
                section.displayedOld.append((item, id))
            }
        }
        if section.stayed.count == 1 && section.displayedOld.count == 1 && section.displayedNew.count == 1 {
            // One displayed item repositioned, and nothing else displayed touched: the items it passed are
            // all displayed, before and after, so it moves in the display as it did in the results.
            let stayed = section.stayed[0]
            builder.move(
                stayed.id, from: IndexPath(_section: section.old, item: stayed.oldItem),
                to: IndexPath(_section: section.new, item: stayed.newItem))
        } else if !section.stayed.isEmpty {
            let touched = _BatchDiff<Entity>.TouchedSection(
                oldIndex: section.old, old: section.displayedOld, new: section.displayedNew, stayed: section.stayed)
            _BatchDiff<Entity>._SectionMoves(touched, untouchedCount: section.nowShown - touched.new.count)
                .report(oldSection: section.old, newSection: section.new, storage: new, into: &builder)
        }
        let countBefore = items.count - section.newTouched.count + section.oldTouched.count
        if countBefore - section.shown != items.count - section.nowShown {
            builder.updateSection(section.new, name: new.sections[section.new].name)
        }
    }

    /// The move to `path`, if there is one: moves are sorted by destination.
    @inlinable func move(to path: IndexPath) -> ItemMove? {
        let moves = changes.movedItems
        var (low, high) = (0, moves.count)
        while low < high {
            let middle = (low + high) / 2
            if moves[middle].to < path { low = middle + 1 } else { high = middle }
        }
        return low < moves.count && moves[low].to == path ? moves[low] : nil
    }

    /// Updates of items displayed before and after.
    @inlinable mutating func classifyUpdates(presenting state: inout _CollapsibleState<Entity>) {
        for (path, id) in zip(changes.updatedItems, changes.updatedItemIDs)
        where path[1] < displayedAfter(section: path[0], presenting: &state) {
            let wasShown: Bool
            if let move = move(to: path) {
                wasShown = move.from[1] < displayedBefore(section: move.from[0])
            } else if let section = section(new: path[0]) {
                wasShown = sections[section].oldPosition(ofUntouchedAt: path[1]) < sections[section].shown
            } else {
                wasShown = false
            }
            if wasShown { builder.update(id, at: path) }
        }
    }
}
