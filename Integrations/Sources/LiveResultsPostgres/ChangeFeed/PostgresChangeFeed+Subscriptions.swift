import LiveResults
import NIOConcurrencyHelpers

extension PostgresChangeFeed {
    /// Adds a table's subscription, starting the reading task if it is the first.
    func add(_ subscription: _FeedSubscription, onRemove: @escaping @Sendable () -> Void) -> EventSubscription {
        let id = state.withLockedValue { state -> Int in
            defer { state.nextSubscriptionID += 1 }
            state.subscriptions[state.nextSubscriptionID] = subscription
            if state.task == nil {
                state.run += 1
                state.firstAttemptEnded = false
                state.readThrough = 0
                let run = state.run
                state.task = Task { await self.read(run: run) }
            }
            return state.nextSubscriptionID
        }
        // The reading task looks the table up at its next step, which a fetch of it waits for.
        wakeReader()
        return EventSubscription { [self] in
            let (ended, waiters) = state.withLockedValue { state -> (Task<Void, Never>?, [_Latch<_DeliveryWait>]) in
                guard state.subscriptions.removeValue(forKey: id) != nil, state.subscriptions.isEmpty else {
                    return (nil, [])
                }
                defer {
                    (state.task, state.currentSlot, state.deliveryWaiters) = (nil, nil, [])
                    (state.pause, state.wakeRequested, state.streamWake) = (nil, false, nil)
                }
                return (state.task, state.deliveryWaiters.map(\.latch))
            }
            ended?.cancel()
            // Nothing is delivered any more: fetches waiting for deliveries go on.
            waiters.forEach { $0.open(with: .ended) }
            resumeReadyFetches()
            onRemove()
        }
    }

    /// The subscriptions, for the reading task.
    var subscriptions: [_FeedSubscription] {
        state.withLockedValue { Array($0.subscriptions.values) }
    }

    /// The slot a fetch of `table` that starts now meets: waits until the reading task has its slot and has
    /// looked up the table's subscriptions, so that every transaction the fetch's snapshot does not see is
    /// read after that and reaches them. `nil` when the feed does not read (no subscription) or its first
    /// attempt to get a slot failed.
    ///
    /// The wait is bounded by `timeout` (a lookup is one query), and by ``slotCreationTimeout`` while the feed
    /// still creates its first slot.
    ///
    /// - Throws: ``PostgresLiveTableError/timedOut(after:)`` once the bound has passed, `CancellationError`.
    func slotForFetch(of table: ObjectIdentifier, timeout: Duration) async throws -> Int? {
        let latch = _Latch<_SlotWait>()
        let now = state.withLockedValue { state -> Int?? in
            let now = state.slotForFetch(of: table)
            if case .none = now { state.fetchWaiters.append((table, latch)) }
            return now
        }
        if case .some(let slot) = now { return slot }
        wakeReader()
        let timer = Task { [self] in
            guard (try? await Task.sleep(for: timeout)) != nil else { return }
            var bound = timeout
            if state.withLockedValue({ $0.awaitsFirstSlot }), Self.slotCreationTimeout > timeout {
                guard (try? await Task.sleep(for: Self.slotCreationTimeout - timeout)) != nil else { return }
                bound = Self.slotCreationTimeout
            }
            latch.open(with: .timedOut(after: bound))
        }
        let outcome = await latch.value(orOnCancellation: .cancelled)
        timer.cancel()
        state.withLockedValue { $0.fetchWaiters.removeAll { $0.latch === latch } }
        switch outcome {
        case .ready(let slot): return slot
        case .timedOut(let bound): throw PostgresLiveTableError.timedOut(after: bound)
        case .cancelled: throw CancellationError()
        }
    }

    /// How long a fetch waits for a feed that is creating its first slot: `pg_create_logical_replication_slot`
    /// waits until the transactions running on the whole cluster when it started have ended, which it learns
    /// from PostgreSQL's record of the running transactions, written every 15 seconds on a busy server.
    static var slotCreationTimeout: Duration { .seconds(60) }

    /// A fetch of `table` took `snapshot`, having met slot `slot` (see ``_FetchMeeting``).
    ///
    /// The subscriptions of the table that await a fetch are released with the snapshot: they skip what it
    /// sees from now on (or, if the slot was replaced meanwhile, refetch). The others met an earlier fetch;
    /// which of them belongs to the controller of this fetch cannot be told, so the fetch waits for all of
    /// them: until each has received every transaction its snapshot sees (``waitForDeliveries(of:through:timeout:)``),
    /// which the controller then replays onto the fetch's result. A subscription released by a snapshot that
    /// this one does not contain (taken concurrently, recorded first) may skip what this fetch lacks: the fetch
    /// reads again, in a new snapshot.
    func meet(table: ObjectIdentifier, snapshot: _Snapshot, slot: Int?) -> _FetchMeeting {
        // The reading task applies the snapshot at its next step: the transactions it held go out then.
        defer { wakeReader() }
        return state.withLockedValue { state in
            let invalidating = slot == nil || slot != state.currentSlot
            var meeting = _FetchMeeting.exact
            for subscription in state.subscriptions.values where subscription.table == table {
                switch subscription.meet(snapshot, invalidating: invalidating) {
                case .released:
                    continue
                case .metBefore(let before):
                    if let before, !snapshot.seesEverything(seenBy: before) { return .readAgain }
                    if slot != nil { meeting = .waitForDeliveries }
                }
            }
            return meeting
        }
    }

    /// Waits until the reading task has read the slot through `position` and handed what it read to the
    /// subscriptions of `table`, and they have received it.
    ///
    /// Returns at once when the feed does not read; ends with the subscriptions (the last one cancelled) or a
    /// replaced slot (they are sent `.invalidated`).
    ///
    /// - Throws: ``PostgresLiveTableError/timedOut(after:)`` once `timeout` has passed.
    func waitForDeliveries(of table: ObjectIdentifier, through position: UInt64, timeout: Duration) async throws {
        let latch = _Latch<_DeliveryWait>()
        let registered = state.withLockedValue { state -> Bool in
            guard state.task != nil, state.currentSlot != nil else { return false }
            state.deliveryWaiters.append((table, position, latch))
            return true
        }
        guard registered else { return }
        wakeReader()
        let timer = Task {
            guard (try? await Task.sleep(for: timeout)) != nil else { return }
            latch.open(with: .timedOut)
        }
        let outcome = await latch.value(orOnCancellation: .cancelled)
        timer.cancel()
        state.withLockedValue { $0.deliveryWaiters.removeAll { $0.latch === latch } }
        switch outcome {
        case .delivered, .ended: return
        case .timedOut: throw PostgresLiveTableError.timedOut(after: timeout)
        case .cancelled: throw CancellationError()
        }
    }

    /// Whether a fetch waits for ``advanced(to:)``: the reading task then learns the position it reads up to.
    var awaitsDeliveries: Bool { state.withLockedValue { !$0.deliveryWaiters.isEmpty } }

    /// The reading task has handed every transaction that committed up to `position` to the subscriptions:
    /// each fetch waiting for that gets, after the deliveries queued to its table's subscriptions, a marker that
    /// resumes it once they all ran. Called by the reading task only.
    func advanced(to position: UInt64) {
        let (ready, subscriptions) = state.withLockedValue { state in
            state.readThrough = max(state.readThrough, position)
            let through = state.readThrough
            let ready = state.deliveryWaiters.filter { $0.position <= through }
            state.deliveryWaiters.removeAll { $0.position <= through }
            return (ready, ready.isEmpty ? [] : Array(state.subscriptions.values))
        }
        for waiter in ready {
            let table = subscriptions.filter { $0.table == waiter.table }
            let countdown = _DeliveryCountdown(count: table.count, opening: waiter.latch)
            for subscription in table {
                // Transactions a fetch released since the last step go first.
                subscription.flush()
                subscription.whenDelivered { countdown.tick() }
            }
        }
    }

    /// The slot was replaced: the fetches waiting for deliveries go on (their subscriptions refetch).
    func releaseDeliveryWaiters() {
        let waiters = state.withLockedValue { state in
            defer { state.deliveryWaiters = [] }
            return state.deliveryWaiters.map(\.latch)
        }
        waiters.forEach { $0.open(with: .ended) }
    }

    /// The current run reads its slot: `created` it (`replaced` when that replaces one the run read), or found
    /// it (at the run's start, or again after a lost connection: the same slot, which fetches may keep meeting).
    func slotReady(run: Int, created: Bool, replaced: Bool) {
        let subscriptions = state.withLockedValue { state -> [_FeedSubscription] in
            guard state.run == run, state.task != nil else { return [] }
            if created || state.currentSlot == nil {
                state.lastSlot += 1
                state.currentSlot = state.lastSlot
            }
            state.firstAttemptEnded = true
            return replaced ? Array(state.subscriptions.values) : []
        }
        subscriptions.forEach { $0.invalidate() }
        if replaced { releaseDeliveryWaiters() }
    }

    /// The current run's attempt failed: fetches waiting for its first attempt go on without a slot.
    func attemptFailed(run: Int) {
        state.withLockedValue { state in
            if state.run == run { state.firstAttemptEnded = true }
        }
        resumeReadyFetches()
    }

    /// Resumes the fetches that waited for what the reading task has done since.
    func resumeReadyFetches() {
        for (latch, slot) in state.withLockedValue({ $0.readyFetches() }) { latch.open(with: .ready(slot)) }
    }

    /// Waits `duration` before the reading task's next read, or less if ``wakeReader()`` is called meanwhile (or
    /// was, during the read that just ended). Called by the reading task only.
    func pause(for requested: Duration) async {
        guard requested > .zero else { return }
        let latch = _Latch<Void>()
        let (woken, duration) = state.withLockedValue { state in
            defer { (state.wakeRequested, state.writtenDuringRead) = (false, false) }
            // A write announced during the read that found nothing may have committed after it began.
            let duration = state.writtenDuringRead ? min(requested, readInterval) : requested
            if !state.wakeRequested { (state.pause, state.pauseIsBackOff) = (latch, duration > readInterval) }
            return (state.wakeRequested, duration)
        }
        guard !woken else { return }
        let timer = Task {
            try? await Task.sleep(for: duration)
            latch.open(with: ())
        }
        await latch.value(orOnCancellation: ())
        timer.cancel()
        state.withLockedValue { state in
            if state.pause === latch { state.pause = nil }
        }
    }

    /// Tells the feed that one of its tables was just written (by this process): a wait that grew longer than
    /// ``readInterval`` while reads found nothing ends, and the feed reads at once. Without it, the first change
    /// after a quiet spell reaches subscribers up to ``maximumReadInterval`` after its commit; with it, after about
    /// a read. A wait of the read interval is left as it is: while changes keep coming, calling this after every
    /// write costs nothing more than the reads the feed makes anyway.
    ///
    /// Writes made by other processes are not announced: they arrive within ``maximumReadInterval`` after a quiet
    /// spell, within ``readInterval`` otherwise.
    ///
    /// - Complexity: O(1).
    public func wake() {
        wakeReader(fromBackOffOnly: true)
    }

    /// The reading task of `run` follows a replication stream: ``wakeReader(fromBackOffOnly:)`` calls `wake`.
    func streamStarted(run: Int, wake: @escaping @Sendable () -> Void) {
        state.withLockedValue { state in
            if state.run == run { state.streamWake = wake }
        }
    }

    /// The stream of `run` ended: the reading task reconnects, or stops.
    func streamEnded(run: Int) {
        state.withLockedValue { state in
            if state.run == run { state.streamWake = nil }
        }
    }

    /// Makes the reading task read at once: a fetch waits for its next step, which a wait grown long while the log
    /// had nothing for the feed must not delay.
    ///
    /// - Parameter fromBackOffOnly: Ends only a wait longer than ``readInterval``, and during a read makes the
    ///   next wait at most that (``wake()``); otherwise any wait ends, and during a read the next is skipped.
    func wakeReader(fromBackOffOnly: Bool = false) {
        let (pause, streamWake) = state.withLockedValue { state -> (_Latch<Void>?, (@Sendable () -> Void)?) in
            // A stream has no back-off: the server pushes each transaction.
            if let wake = state.streamWake { return (nil, fromBackOffOnly ? nil : wake) }
            guard let pause = state.pause else {
                if fromBackOffOnly {
                    state.writtenDuringRead = state.task != nil
                } else {
                    state.wakeRequested = state.task != nil
                }
                return (nil, nil)
            }
            guard !fromBackOffOnly || state.pauseIsBackOff else { return (nil, nil) }
            state.pause = nil
            return (pause, nil)
        }
        pause?.open(with: ())
        streamWake?()
    }
}
