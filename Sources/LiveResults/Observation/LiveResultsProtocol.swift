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
}

extension FetchedResultsController: LiveResultsProtocol {}

extension LiveWindow: LiveResultsProtocol {}

extension ResultsReplica: LiveResultsProtocol {}

extension CollapsibleSections: LiveResultsProtocol {}
