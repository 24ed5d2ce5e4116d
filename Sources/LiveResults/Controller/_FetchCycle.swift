/// Where a ``FetchedResultsController`` is in its fetch cycle: the state it reports, whether events apply,
/// which fetch is current, the events a fetch in flight replays, where the results shown come from, and
/// the tasks that fetches and saves share. A value under the controller's lock.
@usableFromInline struct _FetchCycle<Entity: FetchableEntity>: Sendable {
    /// The state ``FetchedResultsController/state`` reports.
    @usableFromInline var state: FetchState = .idle
    /// Whether a fetch has succeeded since the start or the last reset: only then do events apply.
    @usableFromInline var isLive = false
    /// Incremented by every fetch and reset, and by an invalidation during a fetch that shows nothing yet
    /// (``supersede()``), so that a superseded fetch result is dropped.
    @usableFromInline var generation: UInt64 = 0
    /// The generation of the last reset: a superseded fetch older than it stops waiting.
    @usableFromInline var resetGeneration: UInt64 = 0
    /// The superseded fetches waiting for the newest one to settle.
    @usableFromInline var waiters = _FetchWaiters()
    /// Events received while a fetch is in flight, replayed onto its result; `nil` when none is.
    @usableFromInline var eventsDuringFetch: [EntityEvent<Entity>]?
    /// Where the results shown come from.
    @usableFromInline var origin = ResultsOrigin.none
    /// The last save to the definition's cache, which the next one waits for, so that saves land in order.
    @usableFromInline var lastCacheSave: Task<Void, Never>?
    /// The first fetch that ``ResultsRegistry/fetchedController(for:make:)`` callers share, while it runs.
    @usableFromInline var sharedFirstFetch: Task<Void, any Error>?

    @inlinable init() {}

    /// Whether a fetch is in flight.
    @inlinable var isFetching: Bool { eventsDuringFetch != nil }

    /// Whether `generation` is the newest fetch's: no fetch or reset superseded it.
    @inlinable func isCurrent(_ generation: UInt64) -> Bool { self.generation == generation }

    /// Starts a fetch: it supersedes any other, and events from now on are kept for its result.
    ///
    /// - Returns: The fetch's generation.
    @inlinable mutating func start() -> UInt64 {
        generation += 1
        state = .loading
        if eventsDuringFetch == nil { eventsDuringFetch = [] }
        return generation
    }

    /// Drops the result of the fetch in flight, which an invalidation made stale, before the refetch that the
    /// invalidation starts (in a task of its own) takes its place: a fetch of a newer generation is due, and
    /// the dropped fetch's caller waits for it, since ``isFetching`` stays `true`.
    @inlinable mutating func supersede() {
        guard isFetching else { return }
        generation += 1
    }

    /// Records results shown from `origin`: events apply from now on.
    ///
    /// - Parameter refreshing: Whether a request follows (saved results shown first): the fetch stays in
    ///   flight, and keeps the events to replay them onto its own result.
    /// - Returns: The superseded fetches to resume: all of them once the fetch has settled, none while it
    ///   refreshes.
    @inlinable mutating func shown(from origin: ResultsOrigin, refreshing: Bool) -> [_FetchWaiters.Continuation] {
        isLive = true
        state = refreshing ? .loading : .loaded
        self.origin = origin
        guard !refreshing else { return [] }
        eventsDuringFetch = nil
        return waiters.takeAll()
    }

    /// Records the current fetch's failure: what is shown stays.
    ///
    /// - Returns: The superseded fetches to resume, with the error.
    @inlinable mutating func failed(_ error: any Error) -> [_FetchWaiters.Continuation] {
        state = .failed(error)
        eventsDuringFetch = nil
        return waiters.takeAll()
    }

    /// Stops live updates until the next fetch, and abandons a fetch in flight.
    ///
    /// - Returns: The superseded fetches to resume: a reset ends their wait.
    @inlinable mutating func reset() -> [_FetchWaiters.Continuation] {
        generation += 1
        resetGeneration = generation
        state = .idle
        isLive = false
        eventsDuringFetch = nil
        origin = .none
        return waiters.takeAll()
    }

    /// What a fetch of `generation`, which a newer fetch or a reset superseded, does now.
    ///
    /// - Returns: ``_SupersededFetch/returns`` when a reset followed it, or when the newest fetch showed its
    ///   results; ``_SupersededFetch/fails(_:)`` with the error of the newest fetch when it failed;
    ///   ``_SupersededFetch/waits`` while the newest fetch is in flight.
    @inlinable func outcome(ofSuperseded generation: UInt64) -> _SupersededFetch {
        if resetGeneration > generation { return .returns }
        if isFetching { return .waits }
        if case .failed(let error) = state { return .fails(error) }
        return .returns
    }
}

/// What a superseded ``FetchedResultsController/performFetch()`` does: see
/// ``_FetchCycle/outcome(ofSuperseded:)``.
@usableFromInline enum _SupersededFetch: Sendable {
    case returns
    case fails(any Error)
    case waits
}
