import Foundation

extension _CollapsibleState {
    /// How a section shows its items.
    @usableFromInline enum Showing: Sendable {
        /// Expanded: every item.
        case all
        /// Collapsed without a limit: none.
        case none
        /// Collapsed with a limit: as many as its number of items lets through.
        case limited
    }

    /// How the section named `name` shows its items.
    @inlinable mutating func showing(_ name: String) -> Showing {
        let presentation = presentation(of: name)
        guard presentation.isCollapsed else { return .all }
        return presentation.limit == nil ? .none : .limited
    }

    /// How the section at `index` of `new`, the results after the change set being taken, shows its items:
    /// from ``showingBySection`` when it has it (no lookup of the section's name and its presentation).
    @inlinable mutating func showing(ofNew index: Int, _ new: _SectionedStorage<Entity>) -> Showing {
        if index < showingBySection.count, let showing = showingBySection[index] { return showing }
        let showing = showing(new.sections[index].name)
        if index >= showingBySection.count {
            showingBySection.append(contentsOf: repeatElement(nil, count: index + 1 - showingBySection.count))
        }
        showingBySection[index] = showing
        return showing
    }

    /// How the section at the old index `index` showed its items, before `changes` made `new`.
    @inlinable mutating func showing(
        ofOld index: Int, _ changes: ChangeSet<Entity>, _ indices: SectionIndices, _ new: _SectionedStorage<Entity>
    ) -> Showing {
        if let newIndex = indices.new(ofOld: index) { return showing(ofNew: newIndex, new) }
        let deleted = _BatchDiff<Entity>._SectionMoves.count(of: changes.deletedSections, notAbove: index - 1)
        return showing(changes.deletedSectionNames[deleted])
    }

    /// Follows a change set of the controller, whether or not the view makes its own of it: sections that
    /// come or go move the others, so ``showingBySection`` starts over.
    @inlinable mutating func follow(_ changes: ChangeSet<Entity>) {
        if !changes.insertedSections.isEmpty || !changes.deletedSections.isEmpty {
            showingBySection.removeAll(keepingCapacity: true)
        }
    }

    /// The display's change set of a change set that moves, inserts or deletes at most one item (what a single
    /// event makes), when every section it touches is expanded or collapsed without a limit; `nil` otherwise,
    /// for ``_DisplayDiff``, which gives the same change set for the change sets this one takes.
    ///
    /// Such sections display all of their items or none, whatever their number, so no item crosses the end of
    /// the displayed ones: the changes in expanded sections stay as they are, those in collapsed ones go, an
    /// item moving between an expanded and a collapsed section is inserted or deleted, and a collapsed section
    /// that exists before and after is updated when its number of items changes.
    ///
    /// - Complexity: O(log *n*) per section the change set touches; it allocates only the change set it returns.
    @inlinable mutating func displayedSingleChange(
        _ changes: ChangeSet<Entity>, after new: _SectionedStorage<Entity>
    ) -> ChangeSet<Entity>? {
        guard changes.updatedSections.isEmpty,
            changes.deletedItems.count + changes.insertedItems.count + changes.movedItems.count <= 1
        else { return nil }
        // First how each touched section shows its items, with no change set made: most often they all show
        // everything, and the display's change set is the controller's. Sections are read as numbers, once:
        // each read of an `IndexPath` is a call, and an optional one a copy through its value witness.
        let indices = SectionIndices(changes)
        let deletedSection = changes.deletedItems.isEmpty ? -1 : changes.deletedItems[0][0]
        let insertedSection = changes.insertedItems.isEmpty ? -1 : changes.insertedItems[0][0]
        let hasMove = !changes.movedItems.isEmpty
        let (fromSection, toSection) = hasMove ? (changes.movedItems[0].from[0], changes.movedItems[0].to[0]) : (-1, -1)
        var deleted = Showing.all
        if deletedSection >= 0 {
            deleted = showing(ofOld: deletedSection, changes, indices, new)
            guard deleted != .limited else { return nil }
        }
        var inserted = Showing.all
        if insertedSection >= 0 {
            inserted = showing(ofNew: insertedSection, new)
            guard inserted != .limited else { return nil }
        }
        var (from, to) = (Showing.all, Showing.all)
        if hasMove {
            from = showing(ofOld: fromSection, changes, indices, new)
            to = showing(ofNew: toSection, new)
            guard from != .limited && to != .limited else { return nil }
        }
        // Whether the updated items are displayed before and after: all of them or none, else `nil`.
        var updatesShow: Bool?
        for index in changes.updatedItems.indices {
            let section = changes.updatedItems[index][0]
            let showing = showing(ofNew: section, new)
            guard showing != .limited else { return nil }
            let wasShown: Bool
            if hasMove && section == toSection && changes.movedItems[0].to == changes.updatedItems[index] {
                wasShown = from == .all
            } else {
                // An update in a section inserted by this change set is not one a single change makes.
                guard indices.old(ofNew: section) != nil else { return nil }
                wasShown = true
            }
            let shows = showing == .all && wasShown
            guard updatesShow == nil || updatesShow == shows else { return nil }
            updatesShow = shows
        }
        // Sections come and go in the display as in the results; their presentations are asked for as
        // `_DisplayDiff` asks for them.
        for name in changes.deletedSectionNames { _ = presentation(of: name) }
        for name in changes.insertedSectionNames { _ = presentation(of: name) }
        if deleted == .all && inserted == .all && from == .all && to == .all && updatesShow != false {
            return changes
        }
        var display = ChangeSet<Entity>()
        display.deletedSections = changes.deletedSections
        display.deletedSectionNames = changes.deletedSectionNames
        display.insertedSections = changes.insertedSections
        display.insertedSectionNames = changes.insertedSectionNames
        // The collapsed sections (new indices) that exist before and after, and whose number of items changes.
        var grown: Int?
        var shrunk: Int?
        if deletedSection >= 0 {
            if deleted == .all {
                display.deletedItems = changes.deletedItems
                display.deletedItemIDs = changes.deletedItemIDs
            } else {
                shrunk = indices.new(ofOld: deletedSection)
            }
        }
        if insertedSection >= 0 {
            if inserted == .all {
                display.insertedItems = changes.insertedItems
                display.insertedItemIDs = changes.insertedItemIDs
            } else if indices.old(ofNew: insertedSection) != nil {
                grown = insertedSection
            }
        }
        if hasMove {
            switch (from, to) {
            case (.all, .all):
                display.movedItems = changes.movedItems
                display.movedItemIDs = changes.movedItemIDs
            case (.all, _):
                display.deletedItems = [changes.movedItems[0].from]
                display.deletedItemIDs = changes.movedItemIDs
            case (_, .all):
                display.insertedItems = [changes.movedItems[0].to]
                display.insertedItemIDs = changes.movedItemIDs
            default: break
            }
            let origin = indices.new(ofOld: fromSection)
            if origin != toSection {
                if from == .none { shrunk = origin }
                if to == .none, indices.old(ofNew: toSection) != nil { grown = toSection }
            }
        }
        if updatesShow == true {
            display.updatedItems = changes.updatedItems
            display.updatedItemIDs = changes.updatedItemIDs
        }
        // Ascending, as the contract wants.
        switch (shrunk, grown) {
        case (let first?, let second?):
            Self.update(Swift.min(first, second), of: new, in: &display)
            if first != second { Self.update(Swift.max(first, second), of: new, in: &display) }
        case (let index?, nil), (nil, let index?): Self.update(index, of: new, in: &display)
        case (nil, nil): break
        }
        return display
    }

    /// Lists the section at `index` of `new` as updated in `display`.
    @inlinable static func update(
        _ index: Int, of new: _SectionedStorage<Entity>, in display: inout ChangeSet<Entity>
    ) {
        display.updatedSections.append(index)
        display.updatedSectionNames.append(new.sections[index].name)
    }
}
