import Foundation

/// A view of a controller's results with collapsible sections: accordion sections, and sections that
/// show only their first items until expanded.
///
/// ```swift
/// let list = CollapsibleSections(
///     controller,
///     initiallyCollapsed: { name in name == "Archive" },
///     limit: { name in name == "Inbox" ? SectionLimit(maximum: 5, whenExceeding: 3) : nil }
/// )
/// list.sections          // each with its name, isCollapsed, objects (displayed) and the counts
/// list.collapse("Inbox")
/// ```
///
/// It has the controller's sections, in display coordinates: an expanded section displays all its
/// items; a collapsed one none (a header only), or, with a ``SectionLimit``, all of them up to the
/// limit's `maximum` and its first `whenExceeding` beyond. Collapsed states and limits are remembered by
/// section name, also for sections that do not exist yet or no longer do.
///
/// It follows the controller through ``FetchedResultsController/observeChanges(_:)`` (the controller's
/// delegate stays yours), and its own ``delegate`` and ``changes`` receive change sets under the whole
/// contract of ``ChangeSet`` over the *displayed* items: an item that enters or leaves the displayed part
/// of a section is an insert or a delete, and ``ChangeSet/updatedSections`` lists the sections whose
/// collapsed state or number of hidden items changed. Each controller change costs O(log *n*) more per
/// change, never a rescan of a section.
///
/// The closures run under the controller's lock and the view's: they must not call back into either.
public final class CollapsibleSections<Entity: FetchableEntity>: Sendable {
    /// The controller whose results the view displays.
    public let controller: FetchedResultsController<Entity>
    @usableFromInline let _state: _Lock<_CollapsibleView<Entity>>
    /// Keep the view subscribed to the controller. Outside `_state`, so that the view's state can go last
    /// (inside a change of the controller) without cancelling anything.
    @usableFromInline let _subscriptions = _Lock<[EventSubscription]>([])

    /// Creates a view of `controller`'s results.
    ///
    /// - Parameters:
    ///   - controller: The controller whose results to display.
    ///   - initiallyCollapsed: Whether a section starts collapsed; asked once per section name. None by default.
    ///   - limit: The limit of a collapsed section; asked once per section name. No limit by default.
    @inlinable public init(
        _ controller: FetchedResultsController<Entity>,
        initiallyCollapsed: @escaping @Sendable (String) -> Bool = { _ in false },
        limit: @escaping @Sendable (String) -> SectionLimit? = { _ in nil }
    ) {
        self.controller = controller
        _state = _Lock(_CollapsibleView(state: _CollapsibleState(initiallyCollapsed: initiallyCollapsed, limit: limit)))
        // Each change set of the controller changes the view as it is queued, under the controller's lock,
        // so that the view's state changes in the controller's order; the view delivers its own change
        // sets in the controller's order too, after those queued before them.
        // It holds the state, not the view: the view may then go during a change of the controller, under
        // its lock, without its deinit calling into the controller there.
        let deliver: @Sendable () -> Void = { [weak self] in self?.deliverPending() }
        let transform = controller._addQueueObserver { [weak state = _state] changes, storage, _, _ in
            let queued = state?.withLock { view in
                view.state.follow(changes)
                // Without observers there is no change set to make: reads take the controller's results.
                return view.hasObservers && view.enqueue(view.state.take(changes, after: storage), after: storage)
            }
            return queued == true ? deliver : nil
        }
        _subscriptions.withLock { $0 = [transform] }
    }

    /// The sections as displayed, in the controller's section order.
    ///
    /// - Complexity: O(*s* log *n*) for *s* sections.
    @inlinable public var sections: [CollapsibleSection<Entity>] {
        withDisplay { view, snapshot in view.state.sections(of: snapshot) }
    }

    /// The entity at an index path in display coordinates.
    ///
    /// - Precondition: The index path is displayed.
    /// - Complexity: O(log *n*).
    @inlinable public func object(at indexPath: IndexPath) -> Entity {
        withDisplay { view, snapshot in
            precondition(
                indexPath[1] < view.state.displayedCount(ofSection: indexPath[0], in: snapshot._storage),
                "the item at \(indexPath) is hidden by a collapse")
            return snapshot.object(at: indexPath)
        }
    }

    /// The display index path of the entity with the same id, or `nil` when it is not shown or hidden by
    /// a collapse.
    ///
    /// - Complexity: O(log *n*).
    @inlinable public func indexPath(for entity: Entity) -> IndexPath? {
        withDisplay { view, snapshot in
            guard let indexPath = snapshot.indexPath(for: entity),
                indexPath[1] < view.state.displayedCount(ofSection: indexPath[0], in: snapshot._storage)
            else { return nil }
            return indexPath
        }
    }

    /// Collapses the section with this name, now or when it appears.
    ///
    /// - Returns: The change set of the display, also delivered: the items it hides, and the section updated.
    /// - Complexity: O(*c* log *n*) for the *c* items it hides.
    @discardableResult
    @inlinable public func collapse(_ name: String) -> ChangeSet<Entity> {
        present(name) { $0.isCollapsed = true }
    }

    /// Expands the section with this name, now or when it appears.
    ///
    /// - Returns: The change set of the display, also delivered: the items it shows, and the section updated.
    /// - Complexity: O(*c* log *n*) for the *c* items it shows.
    @discardableResult
    @inlinable public func expand(_ name: String) -> ChangeSet<Entity> {
        present(name) { $0.isCollapsed = false }
    }

    /// Sets the limit of the section with this name while it is collapsed; `nil` for none.
    ///
    /// - Returns: The change set of the display, also delivered.
    /// - Complexity: O(*c* log *n*) for the *c* items it shows or hides.
    @discardableResult
    @inlinable public func setLimit(_ limit: SectionLimit?, for name: String) -> ChangeSet<Entity> {
        present(name) { $0.limit = limit }
    }

    /// The display at one moment: every section of the controller's results, each with the items it displays
    /// (none for a collapsed section without a limit), in display coordinates.
    ///
    /// - Complexity: O(*s* log *n*) for *s* sections.
    @inlinable public var snapshot: FetchedResultsSnapshot<Entity> {
        withDisplay { view, snapshot in view.display(of: snapshot._storage) }
    }

    /// Calls `handler` with every change set of the display from now on and the display right after it, until
    /// the returned subscription is cancelled or released; handlers run before the delegate, in order, where
    /// ``callbackScheduler`` says.
    ///
    /// - Returns: The display the first change set the handler receives applies to, and the subscription.
    /// - Complexity: O(*s* log *n*) for *s* sections, for the display returned; each change set delivered then
    ///   costs as much more for the display after it.
    @inlinable public func observeChanges(
        _ handler: @escaping @Sendable (ChangeSet<Entity>, FetchedResultsSnapshot<Entity>) -> Void
    ) -> (snapshot: FetchedResultsSnapshot<Entity>, subscription: EventSubscription) {
        _observeChangesUnversioned(handler)
    }

    /// ``observeChanges(_:)`` with the version each change set leads to: the number of change sets the view
    /// queued for its observers. For ``ObservableResults``.
    ///
    /// - Returns: The display the first change set the handler receives applies to, its version, and the
    ///   subscription.
    /// - Complexity: O(*s* log *n*) for *s* sections.
    @inlinable func _observeVersionedChanges(
        _ handler: @escaping @Sendable (ChangeSet<Entity>, FetchedResultsSnapshot<Entity>, UInt64) -> Void
    ) -> (snapshot: FetchedResultsSnapshot<Entity>, version: UInt64, subscription: EventSubscription) {
        let (read, subscription) = _CollapsibleView<Entity>.Engine.Subscribers.observe(handler) { add in
            withDisplay { view, snapshot in
                (add(&view.engine.subscribers), (view.display(of: snapshot._storage), view.engine.version))
            }
        } unregister: { [weak self] id in
            // Released after the lock (see `remove`).
            _ = self?._state.withLock { $0.engine.subscribers.remove(observer: id) }
        }
        return (read.0, read.1, subscription)
    }

    /// The display now, with its version (see ``_observeVersionedChanges(_:)``).
    ///
    /// - Complexity: O(*s* log *n*) for *s* sections.
    @inlinable func _versionedSnapshot() -> (snapshot: FetchedResultsSnapshot<Entity>, version: UInt64) {
        withDisplay { view, snapshot in (view.display(of: snapshot._storage), view.engine.version) }
    }

    /// The object that receives the view's change sets, where ``callbackScheduler`` says. Held weakly.
    @inlinable public var delegate: (any CollapsibleSectionsDelegate<Entity>)? {
        get { _state.withLock { $0.delegate } }
        set { _state.withLock { $0.delegate = newValue } }
    }

    /// Where the view's handlers and delegate run: ``CallbackScheduler/immediate`` by default. `changes`
    /// sequences receive each change set at once, wherever this says.
    ///
    /// ```swift
    /// list.callbackScheduler = .async(onQueue: DispatchQueue(label: "ui"))
    /// ```
    ///
    /// A change set made before it is set is delivered where it was queued to be.
    ///
    /// - Complexity: O(1).
    @inlinable public var callbackScheduler: CallbackScheduler {
        get { _state.withLock { $0.callbackScheduler } }
        set { _state.withLock { $0.callbackScheduler = newValue } }
    }

    /// The view's change sets from now on, each exactly once, in order; each access starts a new
    /// subscription, which ends when the sequence and its iterators are released. Buffered without limit
    /// until read; the sequence finishes when the view is released (after what it buffered).
    ///
    /// - Complexity: O(1): it registers the subscription.
    @inlinable public var changes: ResultsChanges<Entity> { changes(bufferingPolicy: .unbounded) }

    /// The view's change sets from now on, buffered by `bufferingPolicy` until read (see
    /// ``FetchedResultsController/changes(bufferingPolicy:)``).
    ///
    /// - Complexity: O(1) to subscribe, and per change set delivered.
    @inlinable public func changes(bufferingPolicy: ResultsChanges<Entity>.BufferingPolicy) -> ResultsChanges<Entity> {
        _CollapsibleView<Entity>.Engine.Subscribers.changes(bufferingPolicy: bufferingPolicy) { subscriber in
            _state.withLock { $0.engine.subscribers.add(subscriber) }
        } unregister: { [weak self] id in
            // Released after the lock (see `remove`).
            _ = self?._state.withLock { $0.engine.subscribers.remove(subscriber: id) }
        }
    }

    @inlinable func present(
        _ name: String, _ change: (inout _CollapsibleState<Entity>.Presentation) -> Void
    ) -> ChangeSet<Entity> {
        let changes = withDisplay { view, snapshot in
            let changes = view.state.present(name, in: snapshot._storage, change)
            view.enqueue(changes, after: snapshot._storage)
            return changes
        }
        deliverPending()
        return changes
    }

    /// Runs `body` with the view's state and the results the controller's observers have, which are the
    /// ones the view displays, under the controller's lock and the view's (in that order, as when the
    /// controller's changes reach the view).
    @inlinable func withDisplay<Result>(
        _ body: (inout _CollapsibleView<Entity>, FetchedResultsSnapshot<Entity>) -> Result
    ) -> Result {
        controller._withObservedStorage { storage in
            _state.withLock { body(&$0, FetchedResultsSnapshot(_storage: storage)) }
        }
    }

    /// Delivers queued change sets in order, one thread at a time, outside the lock.
    @inlinable func deliverPending() {
        _deliverQueued()
    }

    deinit {
        _state.withLock { $0.engine.close() }.finish()
    }
}

/// The view delivers through an engine of its own, under its lock.
extension CollapsibleSections: _DeliveryHost {
    @inlinable func _withEngine<Result>(
        _ body: (inout _DeliveryEngine<Entity, any CollapsibleSectionsDelegate<Entity>>) -> Result
    ) -> Result {
        _state.withLock { body(&$0.engine) }
    }

    @inlinable func _callDelegate(
        _ delegate: any CollapsibleSectionsDelegate<Entity>, with changes: ChangeSet<Entity>,
        snapshot: FetchedResultsSnapshot<Entity>?
    ) {
        delegate.collapsibleSections(self, didChangeContentWith: changes)
    }
}
