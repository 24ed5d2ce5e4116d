import LiveResults

extension PostgresChangeFeed {
    /// Adds a table's subscription, starting the reading task if it is the first.
    func add(_ subscription: _FeedSubscription, onRemove: @escaping @Sendable () -> Void) -> EventSubscription {
        let id = state.withLock { state -> Int in
            defer { state.nextSubscriptionID += 1 }
            state.subscriptions[state.nextSubscriptionID] = subscription
            if state.task == nil {
                state.run += 1
                state.firstAttemptEnded = false
                let run = state.run
                state.task = Task { await self.read(run: run) }
            }
            return state.nextSubscriptionID
        }
        return EventSubscription { [self] in
            let ended = state.withLock { state -> Task<Void, Never>? in
                guard state.subscriptions.removeValue(forKey: id) != nil, state.subscriptions.isEmpty else {
                    return nil
                }
                defer { (state.task, state.currentSlot) = (nil, nil) }
                return state.task
            }
            ended?.cancel()
            resumeReadyFetches()
            onRemove()
        }
    }

    /// The subscriptions, for the reading task.
    var subscriptions: [_FeedSubscription] {
        state.withLock { Array($0.subscriptions.values) }
    }

    /// The slot a fetch of `table` that starts now meets: waits until the reading task has its slot and has
    /// looked up the table's subscriptions, so that every transaction the fetch's snapshot does not see is
    /// read after that and reaches them. `nil` when the feed does not read (no subscription) or its first
    /// attempt to get a slot failed.
    func slotForFetch(of table: ObjectIdentifier) async -> Int? {
        await withCheckedContinuation { (continuation: CheckedContinuation<Int?, Never>) in
            let now = state.withLock { state -> Int?? in
                let now = state.slotForFetch(of: table)
                if case .none = now { state.fetchWaiters.append((table, continuation)) }
                return now
            }
            if case .some(let slot) = now { continuation.resume(returning: slot) }
        }
    }

    /// A fetch of `table` read its rows in `snapshot`, having met slot `slot`: its subscriptions waiting for
    /// a fetch skip what the snapshot sees from now on (or, if the slot was replaced meanwhile, refetch).
    func fetched(table: ObjectIdentifier, snapshot: _Snapshot, slot: Int?) {
        let (subscriptions, current) = state.withLock { state in
            (state.subscriptions.values.filter { $0.table == table }, state.currentSlot)
        }
        for subscription in subscriptions {
            subscription.release(snapshot: snapshot, invalidating: slot == nil || slot != current)
        }
    }

    /// The current run reads its slot: `created` it (`replaced` when that replaces one the run read), or found
    /// it (at the run's start, or again after a lost connection: the same slot, which fetches may keep meeting).
    func slotReady(run: Int, created: Bool, replaced: Bool) {
        let subscriptions = state.withLock { state -> [_FeedSubscription] in
            guard state.run == run, state.task != nil else { return [] }
            if created || state.currentSlot == nil {
                state.lastSlot += 1
                state.currentSlot = state.lastSlot
            }
            state.firstAttemptEnded = true
            return replaced ? Array(state.subscriptions.values) : []
        }
        subscriptions.forEach { $0.invalidate() }
    }

    /// The current run's attempt failed: fetches waiting for its first attempt go on without a slot.
    func attemptFailed(run: Int) {
        state.withLock { state in
            if state.run == run { state.firstAttemptEnded = true }
        }
        resumeReadyFetches()
    }

    /// Resumes the fetches that waited for what the reading task has done since.
    func resumeReadyFetches() {
        for (continuation, slot) in state.withLock({ $0.readyFetches() }) { continuation.resume(returning: slot) }
    }
}
