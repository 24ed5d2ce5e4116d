import Foundation

/// What a ``CollapsibleSections`` view keeps under its lock: the controller's results it displays, and
/// how each section is presented, remembered by name.
///
/// Its transitions are plain value changes that return the view's change sets; the view runs them
/// under its lock and delivers their results.
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

    @usableFromInline var snapshot: FetchedResultsSnapshot<Entity>
    @usableFromInline let initiallyCollapsed: @Sendable (String) -> Bool
    @usableFromInline let initialLimit: @Sendable (String) -> SectionLimit?
    /// Every name seen or set so far; the closures are asked once per name.
    @usableFromInline var presentations: [String: Presentation] = [:]

    @inlinable init(
        snapshot: FetchedResultsSnapshot<Entity>,
        initiallyCollapsed: @escaping @Sendable (String) -> Bool,
        limit: @escaping @Sendable (String) -> SectionLimit?
    ) {
        self.snapshot = snapshot
        self.initiallyCollapsed = initiallyCollapsed
        self.initialLimit = limit
    }

    @inlinable mutating func presentation(of name: String) -> Presentation {
        if let presentation = presentations[name] { return presentation }
        let presentation = Presentation(isCollapsed: initiallyCollapsed(name), limit: initialLimit(name))
        presentations[name] = presentation
        return presentation
    }

    /// How many items of the section at `index` of `snapshot` show.
    @inlinable mutating func displayedCount(ofSection index: Int, in snapshot: FetchedResultsSnapshot<Entity>) -> Int {
        let section = snapshot.sections[index]
        return presentation(of: section.name).displayedCount(of: section.numberOfObjects)
    }

    /// The sections as displayed.
    ///
    /// - Complexity: O(*s* log *n*) for *s* sections.
    @inlinable mutating func sections() -> [CollapsibleSection<Entity>] {
        snapshot.sections.map { section in
            let presentation = presentation(of: section.name)
            return CollapsibleSection(
                section, isCollapsed: presentation.isCollapsed,
                displayed: presentation.displayedCount(of: section.numberOfObjects))
        }
    }

    /// Changes how the section `name` is presented, remembered for when it exists if it does not yet.
    ///
    /// - Returns: The change set of what the view displays: the items that appear or disappear at the
    ///   end of the displayed ones, and the section as updated if its state or its hidden items changed.
    /// - Complexity: O(*c* log *n*) for the *c* items that appear or disappear.
    @inlinable mutating func present(_ name: String, _ change: (inout Presentation) -> Void) -> ChangeSet<Entity> {
        let before = presentation(of: name)
        var after = before
        change(&after)
        presentations[name] = after
        let (index, found) = snapshot._storage.sectionIndex(named: name)
        guard found, before != after else { return ChangeSet() }
        let section = snapshot.sections[index]
        let (shown, nowShown) = (
            before.displayedCount(of: section.numberOfObjects), after.displayedCount(of: section.numberOfObjects)
        )
        var builder = _ChangeSetBuilder<Entity>()
        for item in Swift.min(shown, nowShown)..<Swift.max(shown, nowShown) {
            let id = section.objects[item].id
            let indexPath = IndexPath(_section: index, item: item)
            if nowShown > shown { builder.insert(id, at: indexPath) } else { builder.delete(id, at: indexPath) }
        }
        if before.isCollapsed != after.isCollapsed || shown != nowShown { builder.updateSection(index, name: name) }
        return builder.build()
    }
}
