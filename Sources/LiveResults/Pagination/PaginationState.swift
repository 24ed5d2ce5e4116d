/// Where a ``FetchedResultsController`` stands in its pages: a value read in one piece from
/// ``FetchedResultsController/pagination``.
///
/// A definition without pages counts as one page with nothing before or after it once fetched.
public struct PaginationState: Sendable {
    /// The pages shown: the first, the next pages loaded after it and the previous pages loaded before it.
    /// 0 before the first fetch and after a reset.
    public var pagesLoaded: Int
    /// Whether the last page loaded forward has a next cursor (see ``FetchedResultsController/hasNextPage``).
    public var hasNextPage: Bool
    /// Whether the last page loaded backward has a previous cursor (see
    /// ``FetchedResultsController/hasPreviousPage``).
    public var hasPreviousPage: Bool
    /// Whether a ``FetchedResultsController/loadNextPage()`` request is in flight.
    public var isLoadingNextPage: Bool
    /// Whether a ``FetchedResultsController/loadPreviousPage()`` request is in flight.
    public var isLoadingPreviousPage: Bool
    /// The error of the last page request that failed; cleared by the next page or fetch that succeeds,
    /// and by a reset.
    public var lastError: (any Error)?

    /// Creates a pagination state; the controller makes them, tests and previews may too.
    @inlinable public init(
        pagesLoaded: Int = 0,
        hasNextPage: Bool = false,
        hasPreviousPage: Bool = false,
        isLoadingNextPage: Bool = false,
        isLoadingPreviousPage: Bool = false,
        lastError: (any Error)? = nil
    ) {
        self.pagesLoaded = pagesLoaded
        self.hasNextPage = hasNextPage
        self.hasPreviousPage = hasPreviousPage
        self.isLoadingNextPage = isLoadingNextPage
        self.isLoadingPreviousPage = isLoadingPreviousPage
        self.lastError = lastError
    }
}
