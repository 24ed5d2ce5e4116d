/// Where a ``FetchedResultsController`` is in its fetch cycle: the state it reports, whether events apply,
/// which fetch is current, the events a fetch in flight replays, where the results shown come from, and
/// the tasks that fetches and saves share. A value under the controller's lock.
@usableFromInline struct _FetchCycle<Entity: FetchableEntity>: Sendable {
    /// The state ``FetchedResultsController/state`` reports.
    @usableFromInline var state: FetchState = .idle
    /// Whether a fetch has succeeded since the start or the last reset: only then do events apply.
    @usableFromInline var isLive = false
    /// Incremented by every fetch and reset, so that a superseded fetch result is dropped.
    @usableFromInline var generation: UInt64 = 0
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

    /// Records results shown from `origin`: events apply from now on.
    ///
    /// - Parameter refreshing: Whether a request follows (saved results shown first): the fetch stays in
    ///   flight, and keeps the events to replay them onto its own result.
    @inlinable mutating func shown(from origin: ResultsOrigin, refreshing: Bool) {
        if !refreshing { eventsDuringFetch = nil }
        isLive = true
        state = refreshing ? .loading : .loaded
        self.origin = origin
    }

    /// Records the current fetch's failure: what is shown stays.
    @inlinable mutating func failed(_ error: any Error) {
        state = .failed(error)
        eventsDuringFetch = nil
    }

    /// Stops live updates until the next fetch, and abandons a fetch in flight.
    @inlinable mutating func reset() {
        generation += 1
        state = .idle
        isLive = false
        eventsDuringFetch = nil
        origin = .none
    }
}
