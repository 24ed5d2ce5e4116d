import LiveResults

/// The list as a ``TodoList`` shows it now, with its authors, and what happened since the last listing:
/// what ``TodoList/listing()`` returns, for ``TodoFormatter`` to print.
public struct TodoListing: Sendable {
    /// What happened before the authors were read: change sets, skipped values, diagnostics.
    public var updates: [TodoListUpdate]
    /// What happened while the authors were read: the batch request, then the change set that reported
    /// the to-dos whose author arrived as updated. Empty when every author was cached.
    public var authorUpdates: [TodoListUpdate]
    /// Every to-do of the list, in collapsed projects too; while paused, as they were at the pause.
    public var snapshot: FetchedResultsSnapshot<TodoItem>
    /// The list as displayed, from the same results as ``snapshot``: a collapsed project shows no to-do.
    public var sections: [CollapsibleSection<TodoItem>]
    /// Whether the controller was paused: the list is then as it was at the pause, and change sets are
    /// held back until it resumes.
    public var isPaused: Bool
    /// The author of each shown to-do whose author is stored, by to-do id. While paused, the controller
    /// gives the author of each to-do's current version, which may not be the one ``snapshot`` shows.
    public var authors: [TodoItem.ID: Author]

    /// `#7 Call plumber (p1, by Ben Okafor)`, with the author of this listing if it is this version's.
    ///
    /// While paused, a to-do whose author the listing does not have shows as
    /// `#7 Call plumber (p1, by ben (not available while paused))`: it was deleted or given another
    /// author since the pause, or written during it.
    public func describe(_ item: TodoItem) -> String {
        let author = authors[item.id].flatMap { $0.id == item.authorID ? $0 : nil }
        return TodoFormatter.describe(item, author: author, whilePaused: isPaused)
    }
}
