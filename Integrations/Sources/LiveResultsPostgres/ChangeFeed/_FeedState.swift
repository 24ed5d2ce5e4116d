/// The state of a ``PostgresChangeFeed`` shared by its subscriptions, its fetches and its reading task.
struct _FeedState: Sendable {
    /// The subscriptions of the feed's tables, by the id their `EventSubscription` removes.
    var subscriptions: [Int: _FeedSubscription] = [:]
    var nextSubscriptionID = 0
    /// The reading task, while any subscription runs.
    var task: Task<Void, Never>?
    /// The number of the current reading run: a run that ended (its last subscription did) must not change
    /// the state of the next one.
    var run = 0
    /// Numbers the slots the feed has read, across runs: a fetch records the one it met.
    var lastSlot = 0
    /// The slot of ``lastSlot`` the current run reads, once it exists; `nil` before and between runs.
    var currentSlot: Int?
    /// Whether the current run's first attempt to get its slot ended (in success or failure).
    var firstAttemptEnded = false
    /// Fetches waiting for the slot and for their table's subscriptions to be looked up, by table.
    var fetchWaiters: [(table: ObjectIdentifier, latch: _Latch<_SlotWait>)] = []
    /// The log position up to which the current run has read the slot and handed every committed transaction
    /// to its subscriptions; 0 at the start of a run.
    var readThrough: UInt64 = 0
    /// Fetches waiting until the run has read through a position and their table's subscriptions have
    /// received what it read (see ``PostgresChangeFeed/waitForDeliveries(of:through:timeout:)``).
    var deliveryWaiters: [(table: ObjectIdentifier, position: UInt64, latch: _Latch<_DeliveryWait>)] = []
    /// The reading task's wait before its next read, while it waits (see ``PostgresChangeFeed/wakeReader()``).
    var pause: _Latch<Void>?
    /// Whether the reading task was asked to read at once while it was reading: its next wait is skipped.
    var wakeRequested = false
    /// Whether the current wait is longer than the read interval (the feed backed off while idle), which
    /// ``PostgresChangeFeed/wake()`` ends.
    var pauseIsBackOff = false
    /// Wakes the reading task of the current run while it follows a replication stream
    /// (``PostgresChangeFeed/Transport/replicationProtocol(_:)``).
    var streamWake: (@Sendable () -> Void)?
    /// Whether ``PostgresChangeFeed/wake()`` was called while the reading task was reading: its next wait is at
    /// most the read interval.
    var writtenDuringRead = false

    /// What a fetch of `table` that starts now meets: `.some(slot)` to go on with (`nil`: no slot), or
    /// `.none` to wait for the reading task.
    func slotForFetch(of table: ObjectIdentifier) -> Int?? {
        guard task != nil else { return .some(nil) }
        guard let currentSlot else { return firstAttemptEnded ? .some(nil) : .none }
        let ready = subscriptions.values.allSatisfy { $0.table != table || $0.relation != nil }
        return ready ? .some(currentSlot) : .none
    }

    /// Whether the current run is still trying to get its first slot: creating a logical slot waits for the
    /// transactions running on the whole cluster (see ``PostgresChangeFeed/slotCreationTimeout``).
    var awaitsFirstSlot: Bool { task != nil && currentSlot == nil && !firstAttemptEnded }

    /// Removes the fetches that can go on now, with the slot they meet.
    mutating func readyFetches() -> [(_Latch<_SlotWait>, Int?)] {
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
}
