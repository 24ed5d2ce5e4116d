import Foundation

/// A slice of a controller's ordered results, kept live, with change sets of its own: the top 50 of a
/// million, the page a table view shows, the last 20 messages.
///
/// ```swift
/// let top = controller.window(.first(50))
/// for section in top.sections { print(section.name, section.numberOfObjects) }
/// for await changes in top.changes { render(top.snapshot, changes) }   // window coordinates
/// top.move(to: .first(100))                                           // "show more"
/// ```
///
/// A window holds the entities at its positions (see ``WindowRange``), grouped in their sections: a section
/// appears in the window exactly when one of its entities is in it, and section indices are the window's own.
/// Before the controller's first fetch, a window is empty.
///
/// Its change sets satisfy the whole contract of ``ChangeSet`` against the window's previous contents: an
/// entity that enters the window is an insert and one that leaves is a delete, whatever moved it (its own
/// event, an insert or a delete before the window that shifts it, a page, a refetch, a resort, a resume).
/// Moves are minimal among the entities that stay, and ``ChangeSet/updatedItems`` lists those that stay and
/// changed content. A window whose contents did not change receives nothing. A window follows the
/// deliveries of its controller: paused with it, coalesced with it, caught up by its
/// ``FetchedResultsController/resume()``; its delegate and handlers run where the controller's do
/// (``FetchedResultsController/callbackScheduler``), in order with the controller's own deliveries.
///
/// A window copies no entities: it reads the controller's storage at its positions. A change set of *k*
/// entities costs a window it does not touch O(log *k*) at most, and each window it changes O((*k* + *w*)
/// log *n* + *s* log *k*) for *w* entities that enter or leave it and *s* sections it spans, whatever its
/// size: the window is never listed. Windows that lie before every position a change shifts are not visited
/// at all.
///
/// A window keeps its controller alive, and ends with its last reference or ``close()``.
public final class LiveWindow<Entity: FetchableEntity>: Sendable {
    /// The controller whose results the window shows.
    public let controller: FetchedResultsController<Entity>
    @usableFromInline let _registry: _WindowRegistry<Entity>
    @usableFromInline let _id: UInt64

    @inlinable init(controller: FetchedResultsController<Entity>, registry: _WindowRegistry<Entity>, id: UInt64) {
        self.controller = controller
        self._registry = registry
        self._id = id
    }

    /// The positions the window holds, as it was made or last moved.
    ///
    /// - Complexity: O(1).
    @inlinable public var range: WindowRange {
        _registry.state.withLock { $0.windows[_id]?.range ?? .first(0) }
    }

    /// The window's results at one moment, in window coordinates.
    ///
    /// - Complexity: O(log *n*).
    @inlinable public var snapshot: FetchedResultsSnapshot<Entity> {
        controller._withObservedStorage { storage in
            let positions = _registry.state.withLock { $0.windows[_id]?.positions ?? 0..<0 }
            return FetchedResultsSnapshot(_storage: storage, _window: _WindowSlice(positions, in: storage))
        }
    }

    /// The sections that have entities in the window, each with the entities the window holds.
    ///
    /// - Complexity: O(log *n*).
    @inlinable public var sections: FetchedResultsSections<Entity> { snapshot.sections }

    /// The window's entities in display order.
    ///
    /// - Complexity: O(log *n*).
    @inlinable public var fetchedObjects: FetchedObjects<Entity> { snapshot.fetchedObjects }

    /// The entity at an index path in window coordinates.
    ///
    /// - Precondition: The index path is in the window.
    /// - Complexity: O(log *n*).
    @inlinable public func object(at indexPath: IndexPath) -> Entity { snapshot.object(at: indexPath) }

    /// The index path in window coordinates of the entity with the same id, or `nil` when it is not in the
    /// window.
    ///
    /// - Complexity: O(log *n*).
    @inlinable public func indexPath(for entity: Entity) -> IndexPath? { snapshot.indexPath(for: entity) }

    /// The number of entities in the controller's whole results (as its observers have them): what a
    /// scroll bar or "showing 50 of 1,234" needs.
    ///
    /// - Complexity: O(1).
    @inlinable public var totalCount: Int { controller._withObservedStorage { $0.count } }

    /// Whether the window was closed; a closed window is empty and delivers nothing.
    ///
    /// - Complexity: O(1).
    @inlinable public var isClosed: Bool { _registry.state.withLock { $0.windows[_id] == nil } }

    /// The object that receives the window's change sets through the callbacks of a controller's delegate,
    /// in window coordinates; the `controller` argument is the window's ``controller``. Held weakly.
    ///
    /// - Complexity: O(1).
    @inlinable public var delegate: (any FetchedResultsControllerDelegate<Entity>)? {
        get { _registry.state.withLock { $0.windows[_id]?.delegate } }
        set { _registry.state.withLock { $0.windows[_id]?.delegate = newValue } }
    }

    /// The window's change sets from now on, each exactly once, in order, buffered without limit until read.
    ///
    /// - Complexity: As ``changes(bufferingPolicy:)``.
    @inlinable public var changes: ResultsChanges<Entity> { changes(bufferingPolicy: .unbounded) }

    /// The window's change sets from now on, buffered by `bufferingPolicy` until read. The sequence
    /// finishes when the window closes or is released (after what it buffered).
    ///
    /// - Complexity: O(1) to subscribe; O(1) per change set delivered.
    @inlinable public func changes(bufferingPolicy: ResultsChanges<Entity>.BufferingPolicy) -> ResultsChanges<Entity> {
        _ControllerState<Entity>.Engine.Subscribers.changes(bufferingPolicy: bufferingPolicy) { subscriber in
            _registry.state.withLock { $0.windows[_id]?.subscribers.add(subscriber) }
        } unregister: { [weak self] id in
            guard let self else { return }
            // Released after the lock (see `remove`).
            _ = _registry.state.withLock { $0.windows[_id]?.subscribers.remove(subscriber: id) }
        }
    }

    /// Calls `handler` with every change set of the window from now on, and the window's snapshot right after
    /// it, until the returned subscription is cancelled or released. Handlers run as the controller's do
    /// (see ``FetchedResultsController/observeChanges(_:)``).
    ///
    /// - Returns: The snapshot the first change set the handler receives applies to, and the subscription.
    /// - Complexity: O(1).
    @inlinable public func observeChanges(
        _ handler: @escaping @Sendable (ChangeSet<Entity>, FetchedResultsSnapshot<Entity>) -> Void
    ) -> (snapshot: FetchedResultsSnapshot<Entity>, subscription: EventSubscription) {
        _observeChangesUnversioned(handler)
    }

    /// ``observeChanges(_:)`` with the window's version each change set leads to (see ``version``).
    ///
    /// - Returns: The snapshot the first change set the handler receives applies to, its version, and the
    ///   subscription.
    /// - Complexity: O(log *n*).
    @inlinable func _observeVersionedChanges(
        _ handler: @escaping @Sendable (ChangeSet<Entity>, FetchedResultsSnapshot<Entity>, UInt64) -> Void
    ) -> (snapshot: FetchedResultsSnapshot<Entity>, version: UInt64, subscription: EventSubscription) {
        let (read, subscription) = _ControllerState<Entity>.Engine.Subscribers.observe(handler) { add in
            controller._withObservedStorage { storage in
                _registry.state.withLock { state -> (UInt64?, (FetchedResultsSnapshot<Entity>, UInt64)) in
                    guard state.windows[_id] != nil else {
                        return (
                            nil,
                            (FetchedResultsSnapshot(_storage: storage, _window: _WindowSlice(0..<0, in: storage)), 0)
                        )
                    }
                    let id = add(&state.windows[_id]!.subscribers)
                    let window = state.windows[_id]!
                    let slice = _WindowSlice(window.positions, in: storage)
                    return (id, (FetchedResultsSnapshot(_storage: storage, _window: slice), window.sequence))
                }
            }
        } unregister: { [weak self] id in
            guard let self else { return }
            // Released after the lock (see `remove`).
            _ = _registry.state.withLock { $0.windows[_id]?.subscribers.remove(observer: id) }
        }
        return (read.0, read.1, subscription)
    }

    /// The window's results and their version, read at one moment: what ``ObservableResults`` starts from.
    ///
    /// - Complexity: O(log *n*).
    @inlinable func _versionedSnapshot() -> (snapshot: FetchedResultsSnapshot<Entity>, version: UInt64) {
        controller._withObservedStorage { storage in
            _registry.state.withLock { state in
                let window = state.windows[_id]
                let slice = _WindowSlice(window?.positions ?? 0..<0, in: storage)
                return (FetchedResultsSnapshot(_storage: storage, _window: slice), window?.sequence ?? 0)
            }
        }
    }

    /// Moves the window to other positions, and returns and delivers the one change set from the entities it
    /// held to those it holds now.
    ///
    /// - Precondition: The range's limit and offset are not negative.
    /// - Returns: The change set, also delivered; empty when the window holds the same entities.
    /// - Complexity: O(*d* log *n* + *s*) for *d* entities that enter or leave the window and *s* sections it
    ///   spans before and after, whatever its size.
    @discardableResult
    @inlinable public func move(to range: WindowRange) -> ChangeSet<Entity> {
        range.checkValid()
        let controller = controller
        let changes = controller._withObservers { storage, scheduler in
            var wakes: [_UpdateWaiter] = []
            let (changes, delivery) = _registry.state.withLock {
                state -> (ChangeSet<Entity>, _ControllerState<Entity>.Delivery?) in
                guard let window = state.windows[_id] else { return (ChangeSet(), nil) }
                let new = range.positions(count: storage.count)
                let changes = _WindowDiff.changeSet(
                    _GlobalChanges(unchangedCount: storage.count), from: window.positions, to: new, in: storage)
                state.windows[_id]!.range = range
                state.windows[_id]!.positions = new
                state.isIndexStale = true
                guard !changes.isEmpty else { return (changes, nil) }
                let delivery = state.windows[_id]!.deliver(
                    changes, from: storage, at: window.positions, after: storage, scheduler: scheduler, waking: &wakes)
                return (changes, delivery)
            }
            guard delivery != nil || !wakes.isEmpty else { return (changes, nil) }
            return (
                changes,
                { [weak controller, wakes] in
                    wakes.forEach { $0.resume() }
                    if let delivery { controller?._deliver([delivery]) }
                }
            )
        }
        return changes
    }

    /// Ends the window: it delivers nothing more, its `changes` and update streams finish after what they
    /// buffered, and it reads as empty. Closing twice does nothing.
    ///
    /// - Complexity: O(1), plus O(*W*) for the index of *W* windows at the next change.
    @inlinable public func close() {
        let window = _registry.state.withLock { $0.removeWindow(_id) }
        guard let window else { return }
        for subscriber in window.subscribers.changeSubscriberList { subscriber.finish() }
        for subscriber in window.updateSubscribers.values { subscriber.end() }
    }

    deinit {
        close()
    }
}
