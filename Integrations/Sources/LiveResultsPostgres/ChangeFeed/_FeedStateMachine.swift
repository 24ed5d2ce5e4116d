/// The state of a ``PostgresChangeFeed`` that its subscriptions, its fetches and its reading task share: where the
/// feed is (no run, or a run and what its reading task does), as a value whose transitions return what the feed then
/// does (``WakeAction``, the latches to open, the task to start or cancel). The feed holds it under its lock and runs
/// those actions after the lock is released.
///
/// A run lasts from a first subscription (or hold, ``hold()``) to the last one's end; its reading task is cancelled
/// then, and may still be finishing (a query, dropping a temporary slot: ``stopping``) while a new run starts. Every
/// transition the reading task asks for names its run, and changes nothing once that run has ended.
/// ``shutDown()`` ends the feed's life: the run going on ends, and no other starts.
struct _FeedStateMachine: Sendable {
    /// Where the feed is.
    enum State: Sendable {
        /// No subscription, no run.
        case idle
        /// Subscriptions, and a reading task that reads the slot for them.
        case running(Run)
        /// The feed was shut down (``PostgresChangeFeed/shutdown(timeout:)``): no run starts any more.
        case shutDown
    }

    /// The reading task of a run that ended, until it has finished (a query to end, a temporary slot to drop).
    struct Stopping: Sendable {
        /// The reading task, once the feed has started it.
        var reader: Task<Void, Never>?
        /// The drop of the run's temporary slot, once the reading task has started it.
        var drop: Task<Void, Never>?
    }

    /// One run of the reading task: from a first subscription to the last one's end.
    struct Run: Sendable {
        /// Numbers the runs: the calls of a reading task whose run ended change nothing.
        let number: Int
        /// The subscriptions, by the id their `EventSubscription` removes; never empty with ``holds``.
        var subscriptions: [Int: _FeedSubscription]
        /// The holds that keep the run going with no subscription (``PostgresChangeFeed/keepReading()``), by the id
        /// their `EventSubscription` removes.
        var holds: Set<Int> = []
        /// The reading task, once the feed has started it (``taskStarted(_:run:)``).
        var task: Task<Void, Never>?
        /// The run's slot.
        var slot: Slot = .awaitingFirst
        /// What the reading task does.
        var reader: Reader = .busy(wakeRequested: false, writtenDuringRead: false)
        /// Fetches waiting for the slot and for their table's subscriptions to be looked up.
        var fetchWaiters: [(table: ObjectIdentifier, latch: _Latch<_SlotWait>)] = []
        /// The log position up to which the run has read the slot and handed every committed transaction to its
        /// subscriptions.
        var readThrough: UInt64 = 0
        /// Fetches waiting until the run has read through a position and their table's subscriptions have received
        /// what it read (see ``PostgresChangeFeed/waitForDeliveries(of:through:timeout:)``); only while the run has
        /// a slot.
        var deliveryWaiters: [(table: ObjectIdentifier, position: UInt64, latch: _Latch<_DeliveryWait>)] = []
    }

    /// A run's slot.
    enum Slot: Sendable, Equatable {
        /// The first attempt to get one has not ended: fetches wait for it. Creating a logical slot waits for the
        /// transactions running on the whole cluster (see ``PostgresChangeFeed/slotCreationTimeout``).
        case awaitingFirst
        /// The first attempt failed: fetches go on without a slot (their subscriptions refetch once the feed reads).
        /// The reading task tries again.
        case firstAttemptFailed
        /// The run reads the slot of this number (counted across runs and replacements: a fetch records the one it
        /// met, and a fetch that met another refetches).
        case ready(Int)
    }

    /// What a run's reading task does, as far as waking it is concerned.
    enum Reader: Sendable {
        /// Reading, connecting or getting the slot. `wakeRequested`: the feed asked for a read at once meanwhile,
        /// and the next wait is skipped. `writtenDuringRead`: ``PostgresChangeFeed/wake()`` was called meanwhile,
        /// and the next wait is at most the read interval.
        case busy(wakeRequested: Bool, writtenDuringRead: Bool)
        /// Waiting before the next read until `pause` opens; `backOff` when the wait is longer than the read
        /// interval (the feed found nothing for a while), which ``PostgresChangeFeed/wake()`` ends too.
        case waiting(pause: _Latch<Void>, backOff: Bool)
        /// Following a replication stream: a wake goes to the stream, which has no back-off.
        case streaming(wake: @Sendable () -> Void)
    }

    /// How to wake the reading task, after the lock.
    enum WakeAction: Sendable {
        case none
        /// End the reading task's wait.
        case openPause(_Latch<Void>)
        /// Make the stream hand over what it has and let the reader keep up with the fetches.
        case wakeStream(@Sendable () -> Void)
    }

    private(set) var state = State.idle
    /// The id of the next subscription.
    private var nextSubscriptionID = 0
    /// The number of the last run started.
    private(set) var lastRun = 0
    /// The number of the last slot a run got.
    private(set) var lastSlot = 0
    /// The runs that ended and whose reading task has not finished, by number.
    private(set) var stopping: [Int: Stopping] = [:]
    /// Whether a shutdown gave up waiting (its timeout passed): the drops of temporary slots under way were
    /// cancelled, and those that start later are.
    private(set) var dropsAbandoned = false

    // MARK: Subscriptions

    /// What adding a subscription asks of the feed.
    enum SubscribeAction: Sendable {
        /// Start the reading task of run `run` (then ``taskStarted(_:run:)``).
        case startReading(run: Int)
        /// Wake the running reading task: it looks the table up at its next step, which a fetch of it waits for.
        case wake(WakeAction)
        /// Nothing: the feed was shut down, and its subscriptions get nothing.
        case shutDown
    }

    /// Adds a subscription; the first (or the first hold) starts a run.
    ///
    /// - Returns: The subscription's id, and what to do.
    mutating func subscribe(_ subscription: _FeedSubscription) -> (id: Int, action: SubscribeAction) {
        add { run, id in run.subscriptions[id] = subscription }
    }

    /// Adds a hold, which keeps a run going with no subscription; the first (or the first subscription) starts one.
    ///
    /// - Returns: The hold's id, and what to do.
    mutating func hold() -> (id: Int, action: SubscribeAction) {
        add { run, id in run.holds.insert(id) }
    }

    /// Adds a subscription or a hold with `insert`, to the run going on or to a new one.
    private mutating func add(_ insert: (inout Run, Int) -> Void) -> (id: Int, action: SubscribeAction) {
        let id = nextSubscriptionID
        nextSubscriptionID += 1
        let action = modifyRun { run -> SubscribeAction in
            insert(&run, id)
            return .wake(run.wakeForFetch())
        }
        if let action { return (id, action) }
        if case .shutDown = state { return (id, .shutDown) }
        lastRun += 1
        var run = Run(number: lastRun, subscriptions: [:])
        insert(&run, id)
        state = .running(run)
        return (id, .startReading(run: lastRun))
    }

    /// The feed started `task` for `run`.
    ///
    /// - Returns: The task to cancel: its run ended before it was recorded.
    mutating func taskStarted(_ task: Task<Void, Never>, run: Int) -> Task<Void, Never>? {
        let recorded = modifyRun(run) { run in run.task = task } != nil
        if recorded { return nil }
        stopping[run, default: Stopping()].reader = task
        return task
    }

    /// What removing a subscription asks of the feed.
    struct UnsubscribeAction: Sendable {
        /// The reading task to cancel: the run ended with its last subscription.
        var cancel: Task<Void, Never>?
        /// Fetches that go on, meeting this slot (`nil` when the run ended).
        var resumeFetches: [(_Latch<_SlotWait>, Int?)] = []
        /// Fetches waiting for deliveries that go on: nothing is delivered any more.
        var endDeliveryWaits: [_Latch<_DeliveryWait>] = []
    }

    /// Removes the subscription or hold `id`; the last one ends the run.
    ///
    /// - Returns: What to do, or `nil` when no subscription or hold had that id (it was removed already).
    mutating func unsubscribe(_ id: Int) -> UnsubscribeAction? {
        guard case .running(var run) = state,
            run.subscriptions.removeValue(forKey: id) != nil || run.holds.remove(id) != nil
        else { return nil }
        guard run.subscriptions.isEmpty, run.holds.isEmpty else {
            // Fetches waiting only for that subscription's lookup go on.
            state = .idle
            defer { state = .running(run) }
            return UnsubscribeAction(resumeFetches: run.readyFetches())
        }
        state = .idle
        return end(run)
    }

    /// `run` ended: its reading task is cancelled, and stops (``stopping``); its fetches go on without a slot, and
    /// its delivery waits end.
    private mutating func end(_ run: Run) -> UnsubscribeAction {
        stopping[run.number] = Stopping(reader: run.task)
        return UnsubscribeAction(
            cancel: run.task, resumeFetches: run.fetchWaiters.map { ($0.latch, nil) },
            endDeliveryWaits: run.deliveryWaiters.map(\.latch))
    }

    // MARK: The end of the feed's life

    /// Ends the feed's life: the run going on ends (its subscriptions and holds stay, and get nothing more), and a
    /// later subscription or hold starts none. A second call ends nothing.
    ///
    /// - Returns: What to do about the ending run, as when its last subscription ends: its reading task to cancel,
    ///   its fetches and delivery waits that go on. The shutdown then waits for ``stoppingReaders``.
    mutating func shutDown() -> UnsubscribeAction {
        defer { state = .shutDown }
        guard case .running(let run) = state else { return UnsubscribeAction() }
        return end(run)
    }

    /// The reading tasks of the runs that ended and have not finished (each until it has dropped its temporary
    /// slot), by run; and whether one of them is still being started: its run ended before the feed recorded its
    /// task (``taskStarted(_:run:)``, which the feed calls right after starting it, outside the lock).
    var stoppingReaders: (readers: [Task<Void, Never>], pending: Bool) {
        let runs = stopping.keys.sorted()
        return (runs.compactMap { stopping[$0]?.reader }, runs.contains { stopping[$0]?.reader == nil })
    }

    /// A shutdown's timeout passed before the reading tasks finished.
    ///
    /// - Returns: The drops of temporary slots under way, to cancel; those that start later are cancelled too
    ///   (``dropStarted(_:run:)``).
    mutating func shutdownTimedOut() -> [Task<Void, Never>] {
        dropsAbandoned = true
        return stopping.keys.sorted().compactMap { stopping[$0]?.drop }
    }

    /// The reading task of `run`, which ended, started `drop`, the drop of its temporary slot.
    ///
    /// - Returns: The drop to cancel: a shutdown gave up waiting for it.
    mutating func dropStarted(_ drop: Task<Void, Never>, run: Int) -> Task<Void, Never>? {
        stopping[run, default: Stopping()].drop = drop
        return dropsAbandoned ? drop : nil
    }

    /// The reading task of `run` has finished, its temporary slot dropped or left: a shutdown no longer waits for it.
    mutating func readerFinished(run: Int) {
        stopping[run] = nil
    }

    /// The subscriptions, in the order they were added (none without a run).
    var subscriptions: [_FeedSubscription] {
        guard case .running(let run) = state else { return [] }
        return run.orderedSubscriptions
    }

    // MARK: Fetches

    /// What a fetch that is about to take its snapshot does.
    enum FetchStart: Sendable {
        /// Go on, meeting this slot (`nil`: none, the feed does not read or its first attempt failed).
        case goOn(Int?)
        /// Wait for the latch (registered), after waking the reading task.
        case wait(WakeAction)
    }

    /// A fetch of `table` is about to take its snapshot: it goes on once the run has its slot and has looked up the
    /// table's subscriptions, so that every transaction its snapshot does not see is read after both.
    mutating func fetchStarting(of table: ObjectIdentifier, latch: _Latch<_SlotWait>) -> FetchStart {
        modifyRun { run -> FetchStart in
            if case .some(let slot) = run.slotForFetch(of: table) { return .goOn(slot) }
            run.fetchWaiters.append((table, latch))
            return .wait(run.wakeForFetch())
        } ?? .goOn(nil)
    }

    /// A fetch's wait for the slot ended (opened, timed out or cancelled): its latch is forgotten.
    mutating func fetchWaitEnded(_ latch: _Latch<_SlotWait>) {
        modifyRun { run in run.fetchWaiters.removeAll { $0.latch === latch } }
    }

    /// Whether the current run is still trying to get its first slot.
    var awaitsFirstSlot: Bool {
        guard case .running(let run) = state else { return false }
        return run.slot == .awaitingFirst
    }

    /// Removes the fetches that can go on now, with the slot they meet.
    mutating func readyFetches() -> [(_Latch<_SlotWait>, Int?)] {
        modifyRun { run in run.readyFetches() } ?? []
    }

    /// A fetch of `table` took `snapshot`, having met slot `slot`: see ``PostgresChangeFeed/meet(table:snapshot:slot:)``.
    /// The subscriptions record the snapshot under their own locks (the feed's lock, then a subscription's).
    ///
    /// - Returns: What the fetch does, and how to wake the reading task, which applies the snapshot at its next step.
    mutating func meet(
        table: ObjectIdentifier, snapshot: _Snapshot, slot: Int?
    ) -> (meeting: _FetchMeeting, wake: WakeAction) {
        modifyRun { run -> (_FetchMeeting, WakeAction) in
            let invalidating = slot.map { run.slot != .ready($0) } ?? true
            var meeting = _FetchMeeting.exact
            for subscription in run.orderedSubscriptions where subscription.table == table {
                switch subscription.meet(snapshot, invalidating: invalidating) {
                case .released:
                    continue
                case .metBefore(let before):
                    if let before, !snapshot.seesEverything(seenBy: before) { return (.readAgain, run.wakeForFetch()) }
                    if slot != nil { meeting = .waitForDeliveries }
                }
            }
            return (meeting, run.wakeForFetch())
        } ?? (.exact, .none)
    }

    /// A fetch of `table` waits until the run has read through `position` and its subscriptions have received what
    /// it read.
    ///
    /// - Returns: How to wake the reading task after registering `latch`, or `nil` when there is nothing to wait
    ///   for (no run, or no slot yet).
    mutating func deliveryWaitStarting(
        of table: ObjectIdentifier, through position: UInt64, latch: _Latch<_DeliveryWait>
    ) -> WakeAction? {
        modifyRun { run -> WakeAction? in
            guard case .ready = run.slot else { return nil }
            run.deliveryWaiters.append((table, position, latch))
            return run.wakeForFetch()
        } ?? nil
    }

    /// A fetch's wait for deliveries ended: its latch is forgotten.
    mutating func deliveryWaitEnded(_ latch: _Latch<_DeliveryWait>) {
        modifyRun { run in run.deliveryWaiters.removeAll { $0.latch === latch } }
    }

    /// Whether a fetch waits for ``advanced(run:to:)``: the reading task then asks the server for the position it
    /// reads up to.
    var awaitsDeliveries: Bool {
        guard case .running(let run) = state else { return false }
        return !run.deliveryWaiters.isEmpty
    }

    // MARK: The reading task

    /// The reading task of `run` has handed every transaction that committed up to `position` to the subscriptions.
    ///
    /// - Returns: The fetches whose position it reached, each with its table's subscriptions, which the feed flushes
    ///   and marks (the fetch goes on once each has delivered what it was handed).
    mutating func advanced(run: Int, to position: UInt64) -> [(_Latch<_DeliveryWait>, [_FeedSubscription])] {
        modifyRun(run) { run in
            run.readThrough = max(run.readThrough, position)
            let through = run.readThrough
            let ready = run.deliveryWaiters.filter { $0.position <= through }
            guard !ready.isEmpty else { return [] }
            run.deliveryWaiters.removeAll { $0.position <= through }
            let subscriptions = run.orderedSubscriptions
            return ready.map { waiter in (waiter.latch, subscriptions.filter { $0.table == waiter.table }) }
        } ?? []
    }

    /// What the run's slot being ready asks of the feed.
    struct SlotReadyAction: Sendable {
        /// The subscriptions to send `.invalidated`: the slot replaced one the run read.
        var invalidate: [_FeedSubscription] = []
        /// Fetches waiting for deliveries that go on: their subscriptions refetch.
        var endDeliveryWaits: [_Latch<_DeliveryWait>] = []
    }

    /// The reading task of `run` reads its slot: it `created` it (`replaced` when that replaces one the run read),
    /// or found it (at the run's start, or again after a lost connection: the same slot, which fetches keep
    /// meeting).
    mutating func slotReady(run: Int, created: Bool, replaced: Bool) -> SlotReadyAction {
        guard let hasSlot = modifyRun(run, { run in run.hasSlot }) else { return SlotReadyAction() }
        let newSlot = created || !hasSlot ? lastSlot + 1 : nil
        if let newSlot { lastSlot = newSlot }
        return modifyRun(run) { run -> SlotReadyAction in
            if let newSlot { run.slot = .ready(newSlot) }
            guard replaced else { return SlotReadyAction() }
            defer { run.deliveryWaiters = [] }
            return SlotReadyAction(
                invalidate: run.orderedSubscriptions,
                endDeliveryWaits: run.deliveryWaiters.map(\.latch))
        } ?? SlotReadyAction()
    }

    /// An attempt of the reading task of `run` failed: after the run's first, fetches go on without a slot.
    ///
    /// - Returns: The fetches that go on.
    mutating func attemptFailed(run: Int) -> [(_Latch<_SlotWait>, Int?)] {
        modifyRun(run) { run in
            if run.slot == .awaitingFirst { run.slot = .firstAttemptFailed }
            return run.readyFetches()
        } ?? []
    }

    /// What the reading task does before its next read.
    enum PauseAction: Sendable, Equatable {
        /// Read at once (a wake came during the read, the wait is zero, or the run ended).
        case readNow
        /// Wait this long, or until the latch opens (registered).
        case wait(Duration)
    }

    /// The reading task of `run` would wait `requested` before its next read, until `pause` opens.
    ///
    /// A wake that came during the read skips the wait; a write announced during it (``PostgresChangeFeed/wake()``)
    /// makes it at most `readInterval`, since that write may have committed after the read began.
    mutating func pauseStarting(
        run: Int, requested: Duration, readInterval: Duration, pause: _Latch<Void>
    ) -> PauseAction {
        modifyRun(run) { run -> PauseAction in
            guard case .busy(let wakeRequested, let written) = run.reader else {
                assertionFailure("the reading task waits only after a read")
                return .readNow
            }
            run.reader = .busy(wakeRequested: false, writtenDuringRead: false)
            let duration = written ? min(requested, readInterval) : requested
            guard !wakeRequested, duration > .zero else { return .readNow }
            run.reader = .waiting(pause: pause, backOff: duration > readInterval)
            return .wait(duration)
        } ?? .readNow
    }

    /// The wait of the reading task of `run` ended (its time passed, it was woken, or the task was cancelled).
    mutating func pauseEnded(run: Int, pause: _Latch<Void>) {
        modifyRun(run) { run in
            if case .waiting(let current, _) = run.reader, current === pause {
                run.reader = .busy(wakeRequested: false, writtenDuringRead: false)
            }
        }
    }

    /// Whether the reading task waits longer than the read interval before its next read: the feed backs off.
    var isBackingOff: Bool {
        guard case .running(let run) = state, case .waiting(_, let backOff) = run.reader else { return false }
        return backOff
    }

    /// Makes the reading task read at once: a fetch waits for its next step, which a wait grown long while the log
    /// had nothing for the feed must not delay. A wait ends; during a read, the next wait is skipped.
    mutating func wakeForFetch() -> WakeAction {
        modifyRun { run in run.wakeForFetch() } ?? .none
    }

    /// A process wrote to a followed table (``PostgresChangeFeed/wake()``): a wait longer than the read interval
    /// ends; during a read, the next wait is at most the read interval. A stream has nothing to do.
    mutating func writeAnnounced() -> WakeAction {
        modifyRun { run -> WakeAction in
            switch run.reader {
            case .busy(let wakeRequested, _):
                run.reader = .busy(wakeRequested: wakeRequested, writtenDuringRead: true)
                return .none
            case .waiting(let pause, backOff: true):
                run.reader = .busy(wakeRequested: false, writtenDuringRead: false)
                return .openPause(pause)
            case .waiting, .streaming:
                return .none
            }
        } ?? .none
    }

    /// The reading task of `run` follows a replication stream, which `wake` wakes.
    mutating func streamStarted(run: Int, wake: @escaping @Sendable () -> Void) {
        modifyRun(run) { run in run.reader = .streaming(wake: wake) }
    }

    /// The stream of `run` ended: the reading task reconnects, or stops.
    mutating func streamEnded(run: Int) {
        modifyRun(run) { run in
            if case .streaming = run.reader { run.reader = .busy(wakeRequested: false, writtenDuringRead: false) }
        }
    }

    /// Whether the feed follows a replication stream now (it holds one of the server's `max_wal_senders`).
    var isStreaming: Bool {
        guard case .running(let run) = state, case .streaming = run.reader else { return false }
        return true
    }

    /// Runs `body` on the current run (of number `number`, when given), changed in place.
    ///
    /// - Returns: What `body` returned; `nil` when there is no such run.
    @discardableResult
    private mutating func modifyRun<Result>(_ number: Int? = nil, _ body: (inout Run) -> Result) -> Result? {
        guard case .running(var run) = state, number == nil || run.number == number else { return nil }
        // The run is unique while `body` changes it: its arrays are not copied.
        state = .idle
        defer { state = .running(run) }
        return body(&run)
    }
}

extension _FeedStateMachine.Run {
    /// The subscriptions, in the order they were added.
    fileprivate var orderedSubscriptions: [_FeedSubscription] {
        subscriptions.sorted { $0.key < $1.key }.map(\.value)
    }

    /// Whether the run has a slot.
    fileprivate var hasSlot: Bool {
        if case .ready = slot { true } else { false }
    }

    /// The slot a fetch of `table` that starts now meets (`.some(nil)`: none), or `nil` to wait.
    fileprivate func slotForFetch(of table: ObjectIdentifier) -> Int?? {
        switch slot {
        case .awaitingFirst:
            return nil
        case .firstAttemptFailed:
            return .some(nil)
        case .ready(let slot):
            let ready = subscriptions.values.allSatisfy { $0.table != table || $0.relation != nil }
            return ready ? .some(slot) : nil
        }
    }

    /// Removes the fetches that can go on now, with the slot they meet.
    fileprivate mutating func readyFetches() -> [(_Latch<_SlotWait>, Int?)] {
        var ready: [(_Latch<_SlotWait>, Int?)] = []
        var waiting: [(table: ObjectIdentifier, latch: _Latch<_SlotWait>)] = []
        for waiter in fetchWaiters {
            if case .some(let slot) = slotForFetch(of: waiter.table) {
                ready.append((waiter.latch, slot))
            } else {
                waiting.append(waiter)
            }
        }
        fetchWaiters = waiting
        return ready
    }

    /// See ``_FeedStateMachine/wakeForFetch()``.
    fileprivate mutating func wakeForFetch() -> _FeedStateMachine.WakeAction {
        switch reader {
        case .busy(_, let written):
            reader = .busy(wakeRequested: true, writtenDuringRead: written)
            return .none
        case .waiting(let pause, _):
            reader = .busy(wakeRequested: false, writtenDuringRead: false)
            return .openPause(pause)
        case .streaming(let wake):
            return .wakeStream(wake)
        }
    }
}
