import Foundation

/// Live results that a reader reads and an observer follows: a ``FetchedResultsController``, a
/// ``LiveWindow`` or a ``CollapsibleSections`` display of one, or a ``ResultsReplica`` kept elsewhere.
///
/// Code that shows or checks live results takes any of them: a screen that renders a controller or a window,
/// or `ChangeRecorder` of `LiveResultsTesting`. The read API comes from ``snapshot``, with the shortcuts a
/// controller has; the observation API is the one every kind shares: ``changes`` and
/// ``observeChanges(_:)`` deliver each change set once, in order, under the contract of ``ChangeSet``.
///
/// ```swift
/// func render(_ results: some LiveResultsProtocol<Post>) async {
///     for await changes in results.changes { print(results.snapshot.count, changes) }
/// }
/// ```
///
/// (Named with `Protocol`, as `IteratorProtocol` is, because the natural name is the module's.)
public protocol LiveResultsProtocol<Entity>: AnyObject, Sendable {
    /// The entities the results hold.
    associatedtype Entity: FetchableEntity

    /// The results at one moment, as readers see them.
    ///
    /// - Complexity: O(1) for a controller, O(log *n*) for a window.
    var snapshot: FetchedResultsSnapshot<Entity> { get }

    /// The change sets from now on, each exactly once, in order.
    ///
    /// - Complexity: O(1) to subscribe, and per change set delivered.
    var changes: ResultsChanges<Entity> { get }

    /// Calls `handler` with every change set from now on and the results right after it, until the
    /// returned subscription is cancelled or released.
    ///
    /// - Returns: The results the first change set the handler receives applies to, and the subscription.
    /// - Complexity: O(1) to subscribe.
    func observeChanges(
        _ handler: @escaping @Sendable (ChangeSet<Entity>, FetchedResultsSnapshot<Entity>) -> Void
    ) -> (snapshot: FetchedResultsSnapshot<Entity>, subscription: EventSubscription)

    /// The controller whose results these are (the controller itself, a window's or a collapsible view's),
    /// or `nil` (a replica); not API.
    ///
    /// - Complexity: O(1).
    var _controller: FetchedResultsController<Entity>? { get }
}

/// Live results that number the change sets they deliver: the library's own (a controller, a window, a
/// collapsible view, a replica). ``ObservableResults`` uses the numbers to show each change set once, whether a
/// delivery or a direct read brings it first. Internal, so that users see none of it, and results of their own
/// need not implement it.
@usableFromInline protocol _VersionedLiveResults<Entity>: LiveResultsProtocol {
    /// ``LiveResultsProtocol/observeChanges(_:)`` with the version each change set leads to: a count of the
    /// change sets the results delivered, which ``_versionedSnapshot()`` names too.
    ///
    /// - Returns: The results the first change set the handler receives applies to, their version, and the
    ///   subscription.
    /// - Complexity: O(1) to subscribe (O(log *n*) for a window, O(*s* log *n*) for a collapsible view's *s*
    ///   sections).
    func _observeVersionedChanges(
        _ handler: @escaping @Sendable (ChangeSet<Entity>, FetchedResultsSnapshot<Entity>, UInt64) -> Void
    ) -> (snapshot: FetchedResultsSnapshot<Entity>, version: UInt64, subscription: EventSubscription)

    /// The results the observers have now, with their version (see ``_observeVersionedChanges(_:)``).
    ///
    /// - Complexity: As ``LiveResultsProtocol/snapshot``.
    func _versionedSnapshot() -> (snapshot: FetchedResultsSnapshot<Entity>, version: UInt64)
}

extension LiveResultsProtocol {
    /// ``observeChanges(_:)`` with versions: the results' own when they count them (``_VersionedLiveResults``),
    /// else each change set numbered by this subscription from 1 on, for results of a user's own, which count
    /// no versions. Results read directly then never count as newer than a delivery.
    ///
    /// - Complexity: O(1) to subscribe, as ``observeChanges(_:)``.
    func _observeVersionedChangesIfCounted(
        _ handler: @escaping @Sendable (ChangeSet<Entity>, FetchedResultsSnapshot<Entity>, UInt64) -> Void
    ) -> (snapshot: FetchedResultsSnapshot<Entity>, version: UInt64, subscription: EventSubscription) {
        if let versioned = self as? any _VersionedLiveResults<Entity> {
            return versioned._observeVersionedChanges(handler)
        }
        let count = _Lock<UInt64>(0)
        let (snapshot, subscription) = observeChanges { changes, snapshot in
            let version = count.withLock { count in
                count += 1
                return count
            }
            handler(changes, snapshot, version)
        }
        return (snapshot, 0, subscription)
    }

    /// The results the observers have now with their version: the results' own when they count them, else the
    /// results now as version 0 (see ``_observeVersionedChangesIfCounted(_:)``).
    ///
    /// - Complexity: As ``snapshot``.
    func _versionedSnapshotIfCounted() -> (snapshot: FetchedResultsSnapshot<Entity>, version: UInt64) {
        if let versioned = self as? any _VersionedLiveResults<Entity> { return versioned._versionedSnapshot() }
        return (snapshot, 0)
    }

    /// None.
    ///
    /// - Complexity: O(1).
    @inlinable public var _controller: FetchedResultsController<Entity>? { nil }
}

extension _VersionedLiveResults {
    /// ``observeChanges(_:)`` through ``_observeVersionedChanges(_:)``, for the results that implement the latter.
    @inlinable func _observeChangesUnversioned(
        _ handler: @escaping @Sendable (ChangeSet<Entity>, FetchedResultsSnapshot<Entity>) -> Void
    ) -> (snapshot: FetchedResultsSnapshot<Entity>, subscription: EventSubscription) {
        let (snapshot, _, subscription) = _observeVersionedChanges { changes, snapshot, _ in handler(changes, snapshot)
        }
        return (snapshot, subscription)
    }
}

extension FetchedResultsController: LiveResultsProtocol, _VersionedLiveResults {
    /// The controller itself.
    ///
    /// - Complexity: O(1).
    @inlinable public var _controller: FetchedResultsController<Entity>? { self }

    /// The results the observers have (while paused, the frozen ones) with their version.
    ///
    /// - Complexity: O(1).
    @inlinable func _versionedSnapshot() -> (snapshot: FetchedResultsSnapshot<Entity>, version: UInt64) {
        let observed = _observedResults()
        return (observed.snapshot, observed.version)
    }

    /// See ``_VersionedLiveResults/_observeVersionedChanges(_:)``.
    ///
    /// - Complexity: O(1).
    @inlinable func _observeVersionedChanges(
        _ handler: @escaping @Sendable (ChangeSet<Entity>, FetchedResultsSnapshot<Entity>, UInt64) -> Void
    ) -> (snapshot: FetchedResultsSnapshot<Entity>, version: UInt64, subscription: EventSubscription) {
        _observeChanges(handler)
    }
}

extension LiveWindow: LiveResultsProtocol, _VersionedLiveResults {
    /// The window's controller.
    ///
    /// - Complexity: O(1).
    @inlinable public var _controller: FetchedResultsController<Entity>? { controller }
}

extension ResultsReplica: LiveResultsProtocol, _VersionedLiveResults {}

extension CollapsibleSections: LiveResultsProtocol, _VersionedLiveResults {
    /// The view's controller.
    ///
    /// - Complexity: O(1).
    @inlinable public var _controller: FetchedResultsController<Entity>? { controller }
}
