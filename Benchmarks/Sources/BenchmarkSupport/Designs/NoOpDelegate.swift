import LiveResults

/// A delegate of a controller or of a collapsible view that does nothing: what being observed costs.
public final class NoOpDelegate: FetchedResultsControllerDelegate, CollapsibleSectionsDelegate, Sendable {
    public init() {}

    public func controller(
        _ controller: FetchedResultsController<Row>, didChangeContentWith changes: ChangeSet<Row>,
        snapshot: FetchedResultsSnapshot<Row>
    ) {}

    public func collapsibleSections(_ view: CollapsibleSections<Row>, didChangeContentWith changes: ChangeSet<Row>) {}
}
