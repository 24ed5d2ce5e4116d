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
    /// event makes), when every section it touches is expanded, collapsed without a limit, or collapsed with a
    /// limit and touched only past the items it displays before and after; `nil` otherwise, for
    /// ``_DisplayDiff``, which gives the same change set for the change sets this one takes.
    ///
    /// In such sections no item crosses the end of the displayed ones: the changes in expanded sections stay
    /// as they are, those in collapsed ones go, an item moving between an expanded and a collapsed section is
    /// inserted or deleted, and a collapsed section that exists before and after is updated when its number of
    /// items (so of hidden items) changes.
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
        // The new indices of the sections of the deleted item and of the moved item's origin, if they remain.
        let deletedFrom = deletedSection >= 0 ? indices.new(ofOld: deletedSection) : nil
        let origin = hasMove ? indices.new(ofOld: fromSection) : nil
        /// How many items the change adds to the section at the new index `section`: -1, 0 or 1.
        func added(to section: Int) -> Int {
            var added = (insertedSection == section ? 1 : 0) - (deletedFrom == section ? 1 : 0)
            if hasMove && origin != toSection { added += (toSection == section ? 1 : 0) - (origin == section ? 1 : 0) }
            return added
        }
        // A section collapsed with a limit counts as showing nothing when it shows the same first items before
        // and after and the item is past them (else `_DisplayDiff` works out which items cross its end).
        var deleted = Showing.all
        if deletedSection >= 0 {
            deleted = showing(ofOld: deletedSection, changes, indices, new)
            if deleted == .limited {
                guard let section = deletedFrom,
                    isHiddenByLimit(changes.deletedItems[0][1], ofNew: section, added: added(to: section), new)
                else { return nil }
                deleted = .none
            }
        }
        var inserted = Showing.all
        if insertedSection >= 0 {
            inserted = showing(ofNew: insertedSection, new)
            if inserted == .limited {
                guard indices.old(ofNew: insertedSection) != nil,
                    isHiddenByLimit(
                        changes.insertedItems[0][1], ofNew: insertedSection, added: added(to: insertedSection), new)
                else { return nil }
                inserted = .none
            }
        }
        var (from, to) = (Showing.all, Showing.all)
        if hasMove {
            from = showing(ofOld: fromSection, changes, indices, new)
            to = showing(ofNew: toSection, new)
            if from == .limited {
                guard let section = origin,
                    isHiddenByLimit(changes.movedItems[0].from[1], ofNew: section, added: added(to: section), new)
                else { return nil }
                from = .none
            }
            if to == .limited {
                guard indices.old(ofNew: toSection) != nil,
                    isHiddenByLimit(changes.movedItems[0].to[1], ofNew: toSection, added: added(to: toSection), new)
                else { return nil }
                to = .none
            }
        }
        // Whether the updated items are displayed before and after: all of them or none, else `nil`.
        var updatesShow: Bool?
        for index in changes.updatedItems.indices {
            let section = changes.updatedItems[index][0]
            var showing = showing(ofNew: section, new)
            if showing == .limited {
                guard indices.old(ofNew: section) != nil,
                    isHiddenByLimit(changes.updatedItems[index][1], ofNew: section, added: added(to: section), new)
                else { return nil }
                showing = .none
            }
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

    /// Whether the item at `item` of the section at the new index `section` of `new`, collapsed with a limit,
    /// is hidden before and after a change that adds `added` items to the section (-1, 0 or 1): the section
    /// has more items than the limit's `maximum` on both sides, so it displays its first `whenExceeding` on
    /// both, and `item` (a position on either side) is past them, as every position the change touches in
    /// the section is then, so no item crosses the end of the displayed ones.
    @inlinable mutating func isHiddenByLimit(
        _ item: Int, ofNew section: Int, added: Int, _ new: _SectionedStorage<Entity>
    ) -> Bool {
        let stored = new.sections[section]
        guard let limit = presentation(of: stored.name).limit else { return false }
        let count = stored.items.count
        return count > limit.maximum && count - added > limit.maximum && item >= limit.whenExceeding
    }

    /// Lists the section at `index` of `new` as updated in `display`.
    @inlinable static func update(
        _ index: Int, of new: _SectionedStorage<Entity>, in display: inout ChangeSet<Entity>
    ) {
        display.updatedSections.append(index)
        display.updatedSectionNames.append(new.sections[index].name)
    }
}
