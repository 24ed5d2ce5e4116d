/// One page of a paginated source: its entities, and where the pages next to it start.
///
/// A page request returns one; a paginated ``FetchDefinition`` follows its cursors:
///
/// ```swift
/// let feed = FetchDefinition<Post>(firstPage: FeedCursor.start) { cursor in
///     let response = try await api.posts(after: cursor)
///     return Page(response.posts, next: response.nextCursor)   // next: nil = no more pages
/// }
/// ```
///
/// When `Cursor` is itself optional (`Date?`, say), say "no next page" with `next: nil`: a `nil` of type
/// `Date?` passed as `next:` becomes `.some(nil)`, a next page at cursor `nil`, which would load the
/// first page of a keyed source again.
public struct Page<Entity: FetchableEntity, Cursor: Sendable>: Sendable {
    /// The page's entities, in the source's order: the insertion order that breaks ties between entities
    /// the sort descriptors consider equal.
    public var entities: [Entity]
    /// Where the next page starts, or `nil` when this is the last page.
    public var next: Cursor?
    /// Where the page before this one starts, or `nil` when there is none (for feeds that also grow at
    /// the top; read only from the first page and from pages loaded by
    /// ``FetchedResultsController/loadPreviousPage()``).
    public var previous: Cursor?

    /// Creates a page.
    ///
    /// - Parameters:
    ///   - entities: The page's entities, in the source's order.
    ///   - next: Where the next page starts; `nil` when there is no next page.
    ///   - previous: Where the previous page starts; `nil` (the default) when there is none.
    @inlinable public init(_ entities: [Entity], next: Cursor?, previous: Cursor? = nil) {
        self.entities = entities
        self.next = next
        self.previous = previous
    }
}
