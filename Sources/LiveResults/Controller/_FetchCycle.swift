/// Where a ``FetchedResultsController`` is in its fetch cycle: whether results are shown and from where, the
/// fetch in flight with the events it replays and the fetches it superseded that wait for it, and which fetch
/// is current. A state machine under the controller's lock: its transitions return what the controller does
/// once they return (apply the events or not, show a result or drop it, resume these waiters).
///
/// - `idle` ─ a fetch starts ─▶ `fetching` (nothing shown: events are kept for the result, not applied);
/// - `fetching` ─ its result ─▶ `live`, or stays `fetching` (saved results shown while a request follows);
/// - `fetching` ─ its failure ─▶ `live` with the failure when results are shown, `idle` with it otherwise;
/// - `live` ─ a fetch starts ─▶ `fetching` (what is shown stays, events apply and are kept for the result);
/// - any state ─ a reset ─▶ `idle`.
///
/// Every start, reset and supersession moves ``generation`` on, so that the result or the failure of a fetch
/// that something newer superseded is dropped; the caller of that fetch waits, as a waiter of the fetch in
/// flight, until it settles.
@usableFromInline struct _FetchCycle<Entity: FetchableEntity>: Sendable {
    @usableFromInline typealias Continuation = _FetchWaiters.Continuation

    /// A fetch in flight.
    @usableFromInline struct Fetch: Sendable {
        /// Where the results shown while it runs come from; ``ResultsOrigin/none`` before any are shown, when
        /// events are kept for its result and not applied.
        @usableFromInline var shown: ResultsOrigin
        /// The events received since it started, replayed onto its result.
        @usableFromInline var events: [EntityEvent<Entity>]
        /// The fetches it superseded, waiting for it to settle.
        @usableFromInline var waiters: _FetchWaiters

        @inlinable init(shown: ResultsOrigin, events: [EntityEvent<Entity>] = [], waiters: _FetchWaiters = .init()) {
            self.shown = shown
            self.events = events
            self.waiters = waiters
        }
    }

    @usableFromInline enum State: Sendable {
        /// Nothing shown and no fetch in flight: before the first fetch, after a reset, or after a first fetch
        /// that failed (`failure`). Events are ignored.
        case idle(failure: (any Error)?)
        /// A fetch in flight.
        case fetching(Fetch)
        /// Results shown from `origin` (never ``ResultsOrigin/none``), no fetch in flight; `failure` when the
        /// last fetch failed, leaving them. Events apply.
        case live(origin: ResultsOrigin, failure: (any Error)?)
    }

    /// What the controller does with events after ``receive(_:)``.
    @usableFromInline enum EventsAction: Sendable, Equatable {
        /// Apply them to the results shown (a fetch in flight replays them too).
        case apply
        /// Nothing: the fetch in flight keeps them for its result.
        case keep
        /// Start a refetch: an invalidation came during a first fetch, whose result, now dropped, predates it.
        case refetch
        /// Count and report them as ignored: nothing is shown and no fetch is in flight.
        case ignore
    }

    /// What the controller does with a fetch's result after ``resultArrived(generation:from:refreshing:invalidationWaiting:)``.
    @usableFromInline enum ResultAction: Sendable {
        /// Drop it: a newer fetch or a reset superseded it, or an invalidation waiting in the inbox did (which
        /// starts the refetch that takes its place, once applied). Its caller waits for the newest fetch.
        case drop
        /// Show it, with these events replayed onto it; then resume these superseded fetches, after the
        /// delivery.
        case show(replaying: [EntityEvent<Entity>], resuming: [Continuation])
    }

    /// What the controller does after ``failed(generation:_:)``.
    @usableFromInline enum FailureAction: Sendable {
        /// Nothing: a newer fetch or a reset superseded the failed one.
        case drop
        /// Count and report the failure, and resume these superseded fetches with it.
        case fail(resuming: [Continuation])
    }

    /// What a superseded fetch's caller does after ``wait(superseding:_:token:isCancelled:)``.
    @usableFromInline enum WaitAction: Sendable {
        /// Return: a reset followed it, or the newest fetch showed its results.
        case resume
        /// Throw: the newest fetch failed with this error, or the caller was cancelled.
        case fail(any Error)
        /// Nothing yet: the continuation waits for the fetch in flight.
        case wait
    }

    @usableFromInline var state = State.idle(failure: nil)
    /// Moved on by every fetch, reset and supersession: the current fetch is the one of this generation.
    @usableFromInline var generation: UInt64 = 0
    /// The generation of the last reset: a superseded fetch older than it stops waiting.
    @usableFromInline var resetGeneration: UInt64 = 0
    /// The token of the next waiter (see ``makeWaiterToken()``).
    @usableFromInline var nextWaiterToken: UInt64 = 0
    /// The last save to the definition's cache, which the next one waits for, so that saves land in order.
    @usableFromInline var lastCacheSave: Task<Void, Never>?
    /// The first fetch that ``ResultsRegistry/fetchedController(for:make:)`` callers share, while it runs.
    @usableFromInline var sharedFirstFetch: Task<Void, any Error>?

    @inlinable init() {}

    // MARK: Reading

    /// The state ``FetchedResultsController/state`` reports.
    @inlinable var fetchState: FetchState {
        switch state {
        case .idle(nil): .idle
        case .fetching: .loading
        case .live(_, nil): .loaded
        case .idle(let failure?), .live(_, let failure?): .failed(failure)
        }
    }

    /// Whether results are shown: only then do events apply.
    @inlinable var isLive: Bool {
        switch state {
        case .idle: false
        case .fetching(let fetch): fetch.shown != .none
        case .live: true
        }
    }

    /// Whether a fetch is in flight.
    @inlinable var isFetching: Bool {
        if case .fetching = state { true } else { false }
    }

    /// Where the results shown come from.
    @inlinable var origin: ResultsOrigin {
        switch state {
        case .idle: .none
        case .fetching(let fetch): fetch.shown
        case .live(let origin, _): origin
        }
    }

    /// Whether `generation` is the newest fetch's: no fetch or reset superseded it.
    @inlinable func isCurrent(_ generation: UInt64) -> Bool { self.generation == generation }

    // MARK: Transitions

    /// Starts a fetch: it supersedes any other, whose events and waiters it takes over.
    ///
    /// - Returns: The fetch's generation, and whether results are shown (a refetch, not a first fetch).
    @inlinable mutating func start() -> (generation: UInt64, isLive: Bool) {
        generation += 1
        switch state {
        case .idle:
            state = .fetching(Fetch(shown: .none))
        case .fetching:
            break
        case .live(let origin, _):
            state = .fetching(Fetch(shown: origin))
        }
        return (generation, isLive)
    }

    /// Events arrived (applied directly, or drained from the inbox).
    ///
    /// - Returns: ``EventsAction/apply`` while results are shown; ``EventsAction/keep`` during a first fetch,
    ///   or ``EventsAction/refetch`` when the events hold an invalidation, which supersedes that fetch;
    ///   ``EventsAction/ignore`` when nothing is shown and no fetch is in flight.
    @inline(__always) @inlinable mutating func receive(
        _ events: some Collection<EntityEvent<Entity>>
    ) -> EventsAction {
        // The path of every event, written into the caller: a call here cost some 25 instructions per event.
        if case .live = state { return .apply }
        return receiveWhileNotLive(events)
    }

    /// ``receive(_:)`` while nothing is shown, or while a fetch is in flight.
    @inlinable mutating func receiveWhileNotLive(_ events: some Collection<EntityEvent<Entity>>) -> EventsAction {
        switch state {
        case .live:
            return .apply
        case .idle:
            return .ignore
        case .fetching(var fetch):
            // Out of the payload while it grows, so that its buffer is not copied.
            state = .idle(failure: nil)
            fetch.events.append(contentsOf: events)
            let isLive = fetch.shown != .none
            state = .fetching(fetch)
            if isLive { return .apply }
            guard events.contains(where: { if case .invalidated = $0 { true } else { false } }) else { return .keep }
            supersede()
            return .refetch
        }
    }

    /// A fetch's result arrived.
    ///
    /// - Parameters:
    ///   - origin: Where the result comes from.
    ///   - refreshing: Whether a request follows (saved results shown first): the fetch stays in flight, and
    ///     keeps the events to replay them onto its own result.
    ///   - invalidationWaiting: Whether an ``EntityEvent/invalidated`` waits in the inbox (behind a batch
    ///     another thread delivers): the result predates it.
    /// - Returns: ``ResultAction/drop`` when the fetch is superseded, now (an invalidation waits) or before;
    ///   ``ResultAction/show(replaying:resuming:)`` otherwise, with the superseded fetches to resume once the
    ///   fetch has settled (none while it refreshes).
    @inlinable mutating func resultArrived(
        generation: UInt64, from origin: ResultsOrigin, refreshing: Bool, invalidationWaiting: Bool
    ) -> ResultAction {
        guard isCurrent(generation), case .fetching(var fetch) = state else { return .drop }
        if !refreshing, invalidationWaiting {
            supersede()
            return .drop
        }
        guard !refreshing else {
            fetch.shown = origin
            state = .fetching(fetch)
            return .show(replaying: fetch.events, resuming: [])
        }
        state = .live(origin: origin, failure: nil)
        return .show(replaying: fetch.events, resuming: fetch.waiters.takeAll())
    }

    /// A fetch's request failed: what is shown stays.
    ///
    /// - Returns: ``FailureAction/drop`` when the fetch is superseded; ``FailureAction/fail(resuming:)`` with
    ///   the superseded fetches otherwise.
    @inlinable mutating func failed(generation: UInt64, _ error: any Error) -> FailureAction {
        guard isCurrent(generation), case .fetching(var fetch) = state else { return .drop }
        state = fetch.shown == .none ? .idle(failure: error) : .live(origin: fetch.shown, failure: error)
        return .fail(resuming: fetch.waiters.takeAll())
    }

    /// Drops the result of the fetch in flight, which an invalidation made stale, before the refetch that the
    /// invalidation starts (in a task of its own) takes its place: a fetch of a newer generation is due, and
    /// the dropped fetch's caller waits for it, since the fetch stays in flight.
    @inlinable mutating func supersede() {
        guard isFetching else { return }
        generation += 1
    }

    /// Stops live updates until the next fetch, and abandons a fetch in flight.
    ///
    /// - Returns: The superseded fetches to resume: a reset ends their wait.
    @inlinable mutating func reset() -> [Continuation] {
        generation += 1
        resetGeneration = generation
        defer { state = .idle(failure: nil) }
        guard case .fetching(var fetch) = state else { return [] }
        return fetch.waiters.takeAll()
    }

    /// A token for a superseded fetch's caller to wait with: its task needs it first, to stop waiting when it
    /// is cancelled.
    @inlinable mutating func makeWaiterToken() -> UInt64 {
        defer { nextWaiterToken += 1 }
        return nextWaiterToken
    }

    /// The caller of a fetch of `generation`, which a newer fetch or a reset superseded, waits for the newest
    /// fetch to settle, with `continuation`.
    ///
    /// - Returns: ``WaitAction/resume`` when a reset followed the superseded fetch, or when the newest fetch
    ///   showed its results; ``WaitAction/fail(_:)`` with the newest fetch's error when it failed, or with
    ///   `CancellationError` when the caller is cancelled; ``WaitAction/wait`` while the newest fetch is in
    ///   flight, keeping the continuation.
    @inlinable mutating func wait(
        superseding generation: UInt64, _ continuation: Continuation, token: UInt64, isCancelled: Bool
    ) -> WaitAction {
        if resetGeneration > generation { return .resume }
        switch state {
        case .idle(nil), .live(_, nil):
            return .resume
        case .idle(let failure?), .live(_, let failure?):
            return .fail(failure)
        case .fetching(var fetch):
            guard !isCancelled else { return .fail(CancellationError()) }
            state = .idle(failure: nil)
            fetch.waiters.add(continuation, token: token)
            state = .fetching(fetch)
            return .wait
        }
    }

    /// The caller waiting with `token` was cancelled.
    ///
    /// - Returns: Its continuation, to resume with `CancellationError`, if it still waits.
    @inlinable mutating func cancelWaiter(_ token: UInt64) -> Continuation? {
        guard case .fetching(var fetch) = state else { return nil }
        state = .idle(failure: nil)
        let waiter = fetch.waiters.remove(token)
        state = .fetching(fetch)
        return waiter
    }
}
