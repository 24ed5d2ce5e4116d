extension FetchedResultsController {
    /// Where the controller stands in its pages, read in one piece.
    @inlinable public var pagination: PaginationState {
        _state.withLock { $0.paging.publicState }
    }

    /// Whether ``loadNextPage()`` has a page to load: the last page loaded forward gave a next cursor.
    ///
    /// `false` before the first fetch, after a reset, and for a definition without pages. It stays
    /// `true` after a page request failed, so that the same page can be loaded again.
    @inlinable public var hasNextPage: Bool {
        _state.withLock { $0.paging.nextCursor != nil }
    }

    /// Whether ``loadPreviousPage()`` has a page to load: the first page, or the last page loaded
    /// backward, gave a previous cursor.
    @inlinable public var hasPreviousPage: Bool {
        _state.withLock { $0.paging.previousCursor != nil }
    }

    /// Loads the page after the last one loaded, and adds its entities to the results.
    ///
    /// The entities join as live inserts do: ``FetchDefinition/isIncluded`` applies, their insertion
    /// order continues after everything present, and an id already shown is an update (the entity keeps
    /// its insertion position). Inside one page, the first occurrence of an id counts and the others are
    /// reported as ``ControllerDiagnostic/duplicateIDsInFetchResult(_:)``. Live events keep applying
    /// while the page loads.
    ///
    /// ```swift
    /// while controller.hasNextPage {
    ///     let changes = try await controller.loadNextPage()
    ///     print("page \(controller.pagination.pagesLoaded): \(changes)")
    /// }
    /// ```
    ///
    /// Calls while a page loads share its request and its change set. Without a next page, before the
    /// first fetch, after a reset, or while a fetch is in flight (a refetch reloads the pages itself), it
    /// makes no request and returns an empty change set. A page that arrives after a reset or after a
    /// fetch started is dropped (reported as ``ControllerDiagnostic/pageDropped``) and its callers get an
    /// empty change set at once: unlike a superseded ``performFetch()``, they do not wait for that fetch,
    /// which reloads the pages shown when it started, not this one; load the page again after it.
    /// Cancelling a caller does not cancel the shared request.
    ///
    /// - Returns: The change set the page caused, also delivered to the observers.
    /// - Throws: The page request's error. What is shown stays, the page can be loaded again
    ///   (``hasNextPage`` stays `true`), ``pagination`` keeps the error as `lastError`, and the failure is
    ///   reported as ``ControllerDiagnostic/pageFailed(_:)``.
    /// - Complexity: O(*k* log *n*) for a page of *k* entities and *n* entities shown, plus the request.
    @discardableResult
    @inlinable public func loadNextPage() async throws -> ChangeSet<Entity> {
        try await loadPage(.next)
    }

    /// Loads the page before the first one loaded (or before the last one loaded backward), for feeds
    /// that also grow at the top.
    ///
    /// It follows the ``Page/previous`` cursors and behaves as ``loadNextPage()`` does otherwise. Its
    /// entities are ordered by the sort descriptors like all others; their insertion order, which breaks
    /// ties, continues after everything present.
    ///
    /// - Returns: The change set the page caused, also delivered to the observers.
    /// - Throws: The page request's error, as ``loadNextPage()`` does.
    /// - Complexity: O(*k* log *n*) for a page of *k* entities and *n* entities shown, plus the request.
    @discardableResult
    @inlinable public func loadPreviousPage() async throws -> ChangeSet<Entity> {
        try await loadPage(.previous)
    }

    @inlinable func loadPage(_ direction: _Paging<Entity>.Direction) async throws -> ChangeSet<Entity> {
        guard let source = definition._pages else { return ChangeSet() }
        let retry = definition.retry
        let task = _state.withLock { state -> Task<ChangeSet<Entity>, any Error>? in
            let cycle = state.fetchCycle
            switch state.paging.start(direction, isLive: cycle.isLive, isFetching: cycle.isFetching) {
            case .nothing:
                return nil
            case .join(let task):
                return task
            case .request(let cursor, let token):
                // The task takes the lock only once this one is released.
                let task = Task { [weak self] in
                    let page: _PageSource<Entity>.LoadedPage
                    do {
                        page = try await retry.run({ try await source.load(cursor) }) { error, attempt in
                            self?.requestRetried(error, attempt: attempt)
                        }
                    } catch {
                        self?.pageFailed(error, token: token, direction)
                        throw error
                    }
                    guard let self, let changes = self.pageArrived(page, token: token, direction) else {
                        return ChangeSet<Entity>()
                    }
                    await self.saveToCache()
                    return changes
                }
                state.paging.setLoad(_Paging.Load(token: token, task: task), direction)
                return task
            }
        }
        return try await task?.value ?? ChangeSet()
    }

    /// Adds a page's entities as live inserts, unless a reset or a fetch left its load behind.
    ///
    /// - Returns: The change set, or `nil` when the page was dropped (and nothing needs saving).
    @inlinable func pageArrived(
        _ page: _PageSource<Entity>.LoadedPage, token: UInt64, _ direction: _Paging<Entity>.Direction
    ) -> ChangeSet<Entity>? {
        let (entities, repeatedIDs) = _DuplicateIDs.firstOccurrences(in: page.entities)
        let events = entities.map { EntityEvent.inserted($0) }
        return commit { state, then -> ChangeSet<Entity>? in
            guard state.paging.isCurrent(token, direction) else {
                state.statistics.droppedPages += 1
                then.delivers = false
                then.report(.pageDropped)
                return nil
            }
            state.paging.pageArrived(page, direction)
            state.statistics.duplicateFetchedIDs += repeatedIDs.count
            let changes = events.isEmpty ? ChangeSet() : state.core.apply(events).changes
            then.resume(state.invalidateAssociations(touchedBy: events))
            state.enqueue(changes)
            if !repeatedIDs.isEmpty { then.report(.duplicateIDsInFetchResult(repeatedIDs)) }
            return changes
        }
    }

    /// Records a failed page request, unless a reset or a fetch left its load behind.
    @inlinable func pageFailed(_ error: any Error, token: UInt64, _ direction: _Paging<Entity>.Direction) {
        commit { state, then in
            then.delivers = false
            guard state.paging.isCurrent(token, direction) else { return }
            state.paging.pageFailed(error, direction)
            state.statistics.failedPages += 1
            then.report(.pageFailed(error))
        }
    }
}
