/// Everything a ``CollapsibleSections`` view guards with its lock: its display state, and its delivery
/// engine (its observers with the change sets waiting for them).
@usableFromInline struct _CollapsibleView<Entity: FetchableEntity>: Sendable {
    @usableFromInline typealias Engine = _DeliveryEngine<Entity, any CollapsibleSectionsDelegate<Entity>>

    @usableFromInline var state: _CollapsibleState<Entity>
    @usableFromInline var engine = Engine()

    @usableFromInline weak var delegate: (any CollapsibleSectionsDelegate<Entity>)?
    /// Where the handlers and the delegate run.
    @usableFromInline var callbackScheduler = CallbackScheduler.immediate

    @inlinable init(state: _CollapsibleState<Entity>) {
        self.state = state
    }

    /// Whether anything observes the view's change sets.
    @inlinable var hasObservers: Bool { delegate != nil || !engine.subscribers.isEmpty }

    /// Queues a change set of the view for its observers, if there are any, as its next version.
    ///
    /// - Parameter storage: The controller's results after the change set, which the view displays.
    /// - Returns: Whether it queued one.
    @discardableResult
    @inlinable mutating func enqueue(
        _ changes: consuming ChangeSet<Entity>, after storage: _SectionedStorage<Entity>
    ) -> Bool {
        guard !changes.isEmpty else { return false }
        // The display only for the handlers: the delegate does not take it.
        let display = engine.subscribers.observerList.isEmpty ? nil : display(of: storage)
        return engine.enqueue(
            consume changes, after: { display.unsafelyUnwrapped }, delegate: delegate, delegateTakesSnapshot: false,
            scheduler: callbackScheduler)
    }

    /// The display of `storage`: every section, each with the items it shows.
    ///
    /// - Complexity: O(*s* log *n*) for *s* sections.
    @inlinable mutating func display(of storage: _SectionedStorage<Entity>) -> FetchedResultsSnapshot<Entity> {
        let counts = (0..<storage.sections.count).map { state.displayedCount(ofSection: $0, in: storage) }
        return FetchedResultsSnapshot(_storage: storage, _displayed: _DisplayedItems(counts))
    }
}
