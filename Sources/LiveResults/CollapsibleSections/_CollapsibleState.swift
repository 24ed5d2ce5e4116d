import Foundation

/// How a ``CollapsibleSections`` view presents each section, remembered by name, and the transitions of
/// its display: plain value changes that return the view's change sets.
///
/// It keeps no results of its own: a held snapshot would make every change of the controller copy the
/// nodes on its path. It is given the results as they change (see ``take(_:changes:)``), and reads them
/// from the controller otherwise.
@usableFromInline struct _CollapsibleState<Entity: FetchableEntity>: Sendable {
    /// How one section is presented.
    @usableFromInline struct Presentation: Sendable, Equatable {
        @usableFromInline var isCollapsed: Bool
        @usableFromInline var limit: SectionLimit?

        @inlinable init(isCollapsed: Bool, limit: SectionLimit?) {
            self.isCollapsed = isCollapsed
            self.limit = limit
        }

        /// How many of `count` items show.
        @inlinable func displayedCount(of count: Int) -> Int {
            guard isCollapsed else { return count }
            return limit?.displayedCount(of: count) ?? 0
        }
    }

    @usableFromInline let initiallyCollapsed: @Sendable (String) -> Bool
    @usableFromInline let initialLimit: @Sendable (String) -> SectionLimit?
    /// Every name seen or set so far; the closures are asked once per name.
    @usableFromInline var presentations: [String: Presentation] = [:]
    /// How each section of the results the view last took shows its items, by index, where looked up since
    /// sections last came or went (``follow(_:)``) or a presentation last changed; `nil` elsewhere. A change
    /// set of one event then finds its sections' presentations without hashing their names.
    @usableFromInline var showingBySection: [Showing?] = []

    @inlinable init(
        initiallyCollapsed: @escaping @Sendable (String) -> Bool, limit: @escaping @Sendable (String) -> SectionLimit?
    ) {
        self.initiallyCollapsed = initiallyCollapsed
        self.initialLimit = limit
    }

    @inlinable mutating func presentation(of name: String) -> Presentation {
        if let presentation = presentations[name] { return presentation }
        let presentation = Presentation(isCollapsed: initiallyCollapsed(name), limit: initialLimit(name))
        presentations[name] = presentation
        return presentation
    }

    /// How many items of the section at `index` of `storage` show.
    @inlinable mutating func displayedCount(ofSection index: Int, in storage: _SectionedStorage<Entity>) -> Int {
        let section = storage.sections[index]
        return presentation(of: section.name).displayedCount(of: section.items.count)
    }

    /// The sections of `snapshot` as displayed.
    ///
    /// - Complexity: O(*s* log *n*) for *s* sections.
    @inlinable mutating func sections(of snapshot: FetchedResultsSnapshot<Entity>) -> [CollapsibleSection<Entity>] {
        snapshot.sections.map { section in
            let presentation = presentation(of: section.name)
            return CollapsibleSection(
                section, isCollapsed: presentation.isCollapsed,
                displayed: presentation.displayedCount(of: section.numberOfObjects))
        }
    }

    /// Changes how the section `name` is presented, remembered for when it exists if it does not yet.
    ///
    /// - Returns: The change set of the display of `storage`: the items that appear or disappear at the
    ///   end of the displayed ones, and the section as updated if its state or its hidden items changed.
    /// - Complexity: O(*c* log *n*) for the *c* items that appear or disappear.
    @inlinable mutating func present(
        _ name: String, in storage: _SectionedStorage<Entity>, _ change: (inout Presentation) -> Void
    ) -> ChangeSet<Entity> {
        let before = presentation(of: name)
        var after = before
        change(&after)
        presentations[name] = after
        showingBySection.removeAll(keepingCapacity: true)
        let (index, found) = storage.sectionIndex(named: name)
        guard found, before != after else { return ChangeSet() }
        let items = storage.sections[index].items
        let (shown, nowShown) = (before.displayedCount(of: items.count), after.displayedCount(of: items.count))
        var builder = _ChangeSetBuilder<Entity>()
        for item in Swift.min(shown, nowShown)..<Swift.max(shown, nowShown) {
            let (id, indexPath) = (items[item].id, IndexPath(_section: index, item: item))
            if nowShown > shown { builder.insert(id, at: indexPath) } else { builder.delete(id, at: indexPath) }
        }
        if before.isCollapsed != after.isCollapsed || shown != nowShown { builder.updateSection(index, name: name) }
        return builder.build()
    }
}
