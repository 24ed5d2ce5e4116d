/// Receives the changes of a ``FetchedResultsController``, in the style of Core Data's
/// `NSFetchedResultsControllerDelegate`.
///
/// For every non-empty change set the controller calls, in order: ``controllerWillChangeContent(_:)``,
/// ``controller(_:didChange:)-(_,SectionChange)`` for each section change, ``controller(_:didChange:)-(_,ItemChange<Self.Entity>)``
/// for each item change, and ``controller(_:didChangeContentWith:snapshot:)`` with the whole change set and
/// the snapshot right after it. Every method has an empty default implementation.
///
/// The controller holds its delegate weakly. Callbacks run where ``FetchedResultsController/callbackScheduler``
/// says; a callback may read the controller or apply events to it.
///
/// ```swift
/// final class Printer: FetchedResultsControllerDelegate {
///     func controller(_ controller: FetchedResultsController<Post>,
///                     didChangeContentWith changes: ChangeSet<Post>,
///                     snapshot: FetchedResultsSnapshot<Post>) {
///         print(changes)
///     }
/// }
/// ```
public protocol FetchedResultsControllerDelegate<Entity>: AnyObject, Sendable {
    /// The kind of entity the controller shows.
    associatedtype Entity: FetchableEntity

    /// A change set is about to be delivered.
    func controllerWillChangeContent(_ controller: FetchedResultsController<Entity>)

    /// A section was inserted or deleted.
    func controller(_ controller: FetchedResultsController<Entity>, didChange section: SectionChange)

    /// An entity was inserted, deleted, moved or updated.
    func controller(_ controller: FetchedResultsController<Entity>, didChange item: ItemChange<Entity>)

    /// The change set is delivered; `snapshot` is the results right after it.
    func controller(
        _ controller: FetchedResultsController<Entity>,
        didChangeContentWith changes: ChangeSet<Entity>,
        snapshot: FetchedResultsSnapshot<Entity>
    )
}

extension FetchedResultsControllerDelegate {
    /// Does nothing.
    @inlinable public func controllerWillChangeContent(_ controller: FetchedResultsController<Entity>) {}

    /// Does nothing.
    @inlinable public func controller(_ controller: FetchedResultsController<Entity>, didChange section: SectionChange)
    {}

    /// Does nothing.
    @inlinable public func controller(
        _ controller: FetchedResultsController<Entity>, didChange item: ItemChange<Entity>
    ) {}

    /// Does nothing.
    @inlinable public func controller(
        _ controller: FetchedResultsController<Entity>,
        didChangeContentWith changes: ChangeSet<Entity>,
        snapshot: FetchedResultsSnapshot<Entity>
    ) {}
}
