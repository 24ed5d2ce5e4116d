/// The pagination state a ``FetchedResultsController`` keeps under its lock: the cursors onward in
/// each direction, how many pages were loaded, and the page loads in flight.
///
/// Its transitions are plain value changes; the controller runs the requests and applies the pages.
@usableFromInline struct _Paging<Entity: FetchableEntity>: Sendable {
    @usableFromInline enum Direction: Sendable {
        case next, previous
    }

    /// A page load in flight, which every caller for its direction awaits.
    @usableFromInline struct Load: Sendable {
        @usableFromInline let token: UInt64
        @usableFromInline let task: Task<ChangeSet<Entity>, any Error>

        @inlinable init(token: UInt64, task: Task<ChangeSet<Entity>, any Error>) {
            self.token = token
            self.task = task
        }
    }

    /// What a call to load a page does.
    @usableFromInline enum Start {
        /// No page to load: no next cursor, no fetch yet, or a fetch in flight (which reloads the pages).
        case nothing
        /// Await the load in flight.
        case join(Task<ChangeSet<Entity>, any Error>)
        /// Request the page at this cursor; record the task with this token.
        case request(cursor: any Sendable, token: UInt64)
    }

    @usableFromInline var nextCursor: (any Sendable)?
    @usableFromInline var previousCursor: (any Sendable)?
    @usableFromInline var forwardPages = 0
    @usableFromInline var backwardPages = 0
    @usableFromInline var nextLoad: Load?
    @usableFromInline var previousLoad: Load?
    @usableFromInline var lastError: (any Error)?
    /// Tokens tell a page that arrives for the load in flight from one a reset or a fetch left behind.
    @usableFromInline var nextToken: UInt64 = 0

    @inlinable init() {}

    /// How many pages a fetch loads: the first alone before anything was loaded, else as many as shown.
    @inlinable var reloadPlan: (forward: Int, backward: Int) {
        (Swift.max(1, forwardPages), backwardPages)
    }

    @inlinable var publicState: PaginationState {
        PaginationState(
            pagesLoaded: forwardPages + backwardPages,
            hasNextPage: nextCursor != nil,
            hasPreviousPage: previousCursor != nil,
            isLoadingNextPage: nextLoad != nil,
            isLoadingPreviousPage: previousLoad != nil,
            lastError: lastError
        )
    }

    @inlinable func load(_ direction: Direction) -> Load? {
        switch direction {
        case .next: nextLoad
        case .previous: previousLoad
        }
    }

    @inlinable mutating func setLoad(_ load: Load?, _ direction: Direction) {
        switch direction {
        case .next: nextLoad = load
        case .previous: previousLoad = load
        }
    }

    /// Decides what a call to load a page in `direction` does.
    ///
    /// - Parameters:
    ///   - isLive: Whether a fetch has succeeded since the start or the last reset.
    ///   - isFetching: Whether a fetch is in flight; it reloads the pages from the first, so a page
    ///     from the cursors shown now would be stale when it lands.
    @inlinable mutating func start(_ direction: Direction, isLive: Bool, isFetching: Bool) -> Start {
        if let load = load(direction) { return .join(load.task) }
        guard isLive, !isFetching else { return .nothing }
        let cursor =
            switch direction {
            case .next: nextCursor
            case .previous: previousCursor
            }
        guard let cursor else { return .nothing }
        defer { nextToken += 1 }
        return .request(cursor: cursor, token: nextToken)
    }

    /// Whether `token` names the load in flight in `direction`.
    @inlinable func isCurrent(_ token: UInt64, _ direction: Direction) -> Bool {
        load(direction)?.token == token
    }

    /// Records a page that arrived for the load in flight: the cursor onward advances.
    @inlinable mutating func pageArrived(_ page: _PageSource<Entity>.LoadedPage, _ direction: Direction) {
        switch direction {
        case .next:
            nextCursor = page.next
            forwardPages += 1
        case .previous:
            previousCursor = page.previous
            backwardPages += 1
        }
        setLoad(nil, direction)
        lastError = nil
    }

    /// Records the failure of the load in flight: the cursor stays, so the same page can be retried.
    @inlinable mutating func pageFailed(_ error: any Error, _ direction: Direction) {
        setLoad(nil, direction)
        lastError = error
    }

    /// Records the pages a fetch loaded; loads in flight are left behind (their pages will be dropped).
    @inlinable mutating func fetched(_ chain: _PageChain<Entity>) {
        nextCursor = chain.next
        previousCursor = chain.previous
        forwardPages = chain.forwardPages
        backwardPages = chain.backwardPages
        nextLoad = nil
        previousLoad = nil
        lastError = nil
    }

    /// Leaves the loads in flight behind when a fetch starts: their pages come from cursors the fetch
    /// replaces, so they will be dropped.
    @inlinable mutating func fetchStarted() {
        nextLoad = nil
        previousLoad = nil
    }

    /// Forgets every page (a reset). The token counter goes on, so loads left behind stay stale.
    @inlinable mutating func forget() {
        let token = nextToken
        self = _Paging()
        nextToken = token
    }
}
