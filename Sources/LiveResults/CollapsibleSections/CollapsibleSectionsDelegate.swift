/// Receives the change sets of a ``CollapsibleSections`` view, in display coordinates.
public protocol CollapsibleSectionsDelegate<Entity>: AnyObject, Sendable {
    /// The entity type of the view.
    associatedtype Entity: FetchableEntity

    /// Called after every change of what the view displays, with the change set that turns what it
    /// displayed before into what it displays now.
    func collapsibleSections(_ view: CollapsibleSections<Entity>, didChangeContentWith changes: ChangeSet<Entity>)
}
