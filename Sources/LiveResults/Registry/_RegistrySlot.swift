/// One key's place in a ``ResultsRegistry``: the controller handed out for it, held weakly, and the
/// strong reference that keeps it alive for the registry's `keepAlive`.
///
/// Its lock is held while `make` builds the key's controller, so that concurrent askers wait for that
/// one controller instead of building their own. Locks are taken in one order only: a slot's lock,
/// then the registry's table (``ResultsRegistry`` never takes a slot's lock while holding the table).
final class _RegistrySlot: Sendable {
    struct State: Sendable {
        /// The live controller, if any consumer (or ``retained``) still holds it.
        weak var controller: (any _RegisteredController)?
        /// The keep-alive reference, dropped at ``releaseDeadline``.
        var retained: (any _RegisteredController)?
        /// When ``retained`` is dropped; pushed back each time the controller is handed out.
        var releaseDeadline = ContinuousClock.now
        /// Whether a task is waiting for ``releaseDeadline``.
        var hasReleaseTask = false
        /// Whether the slot was taken out of the registry's table; an asker that finds it removed asks
        /// the table again.
        var isRemoved = false
    }

    let key: QueryKey
    let state = _Lock(State())

    init(key: QueryKey) {
        self.key = key
    }

    /// Drops the keep-alive reference if its deadline has passed; returns whether it did (or whether
    /// there was nothing left to keep alive). The reference is released when this function returns,
    /// outside the lock, so a controller's deinit never runs under it.
    func releaseIfDue() -> Bool {
        let (released, isDone): ((any _RegisteredController)?, Bool) = state.withLock { state in
            guard state.retained == nil || ContinuousClock.now >= state.releaseDeadline else { return (nil, false) }
            state.hasReleaseTask = false
            defer { state.retained = nil }
            return (state.retained, true)
        }
        _ = released
        return isDone
    }
}

/// What a ``ResultsRegistry`` needs of the controllers it holds, whatever their entity type.
protocol _RegisteredController: AnyObject, Sendable {
    /// Refetches if the controller has fetched before (its state is not idle); a failure is ignored
    /// here, the controller reports it through its state and diagnostics.
    func _refetchIfFetched() async
}

extension FetchedResultsController: _RegisteredController {
    /// Fetches unless the controller shows fetched results; concurrent callers share one fetch, and
    /// the next call after a failed one fetches again.
    func _fetchIfNeeded() async throws {
        let fetch = _state.withLock { state -> Task<Void, any Error>? in
            guard !state.fetchCycle.isLive else { return nil }
            if let shared = state.fetchCycle.sharedFirstFetch { return shared }
            let fetch = Task {
                // Cleared when done, so that a reset or a failure lets the next caller fetch again.
                defer { _state.withLock { $0.fetchCycle.sharedFirstFetch = nil } }
                try await performFetch()
            }
            state.fetchCycle.sharedFirstFetch = fetch
            return fetch
        }
        try await fetch?.value
    }

    func _refetchIfFetched() async {
        guard !state.isIdle else { return }
        _ = try? await performFetch()
    }
}
