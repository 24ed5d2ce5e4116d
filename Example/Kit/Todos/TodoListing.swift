import LiveResults

/// The list as a ``TodoList`` shows it now, with its authors, and what happened since the last listing:
/// what ``TodoList/listing()`` returns, for ``TodoFormatter`` to print.
public struct TodoListing: Sendable {
    /// What happened before the authors were read: change sets, skipped values, diagnostics.
    public var updates: [TodoListUpdate]
    /// What happened while the authors were read: the batch request, then the change set that reported
    /// the to-dos whose author arrived as updated. Empty when every author was cached.
    public var authorUpdates: [TodoListUpdate]
    /// The list.
    public var snapshot: FetchedResultsSnapshot<TodoItem>
    /// The author of each shown to-do whose author is stored, by to-do id.
    public var authors: [TodoItem.ID: Author]

    /// `#7 Call plumber (p1, by Ben Okafor)`, with the author of this listing.
    public func describe(_ item: TodoItem) -> String {
        TodoFormatter.describe(item, author: authors[item.id])
    }
}
