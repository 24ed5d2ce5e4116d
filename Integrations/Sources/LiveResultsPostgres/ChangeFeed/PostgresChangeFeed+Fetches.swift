import NIOConcurrencyHelpers

extension PostgresChangeFeed {
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
        switch machine.withLockedValue({ $0.fetchStarting(of: table, latch: latch) }) {
        case .goOn(let slot): return slot
        case .wait(let wake): perform(wake)
        }
        let timer = Task { [self] in
            guard (try? await Task.sleep(for: timeout)) != nil else { return }
            var bound = timeout
            if machine.withLockedValue({ $0.awaitsFirstSlot }), Self.slotCreationTimeout > timeout {
                guard (try? await Task.sleep(for: Self.slotCreationTimeout - timeout)) != nil else { return }
                bound = Self.slotCreationTimeout
            }
            latch.open(with: .timedOut(after: bound))
        }
        let outcome = await latch.value(orOnCancellation: .cancelled)
        timer.cancel()
        machine.withLockedValue { $0.fetchWaitEnded(latch) }
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
        let (meeting, wake) = machine.withLockedValue { $0.meet(table: table, snapshot: snapshot, slot: slot) }
        // The reading task applies the snapshot at its next step: the transactions it held go out then.
        perform(wake)
        return meeting
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
        let wake = machine.withLockedValue {
            $0.deliveryWaitStarting(of: table, through: position, latch: latch)
        }
        guard let wake else { return }
        perform(wake)
        let timer = Task {
            guard (try? await Task.sleep(for: timeout)) != nil else { return }
            latch.open(with: .timedOut)
        }
        let outcome = await latch.value(orOnCancellation: .cancelled)
        timer.cancel()
        machine.withLockedValue { $0.deliveryWaitEnded(latch) }
        switch outcome {
        case .delivered, .ended: return
        case .timedOut: throw PostgresLiveTableError.timedOut(after: timeout)
        case .cancelled: throw CancellationError()
        }
    }

    /// Resumes the fetches that waited for what the reading task has done since.
    func resumeReadyFetches() {
        for (latch, slot) in machine.withLockedValue({ $0.readyFetches() }) { latch.open(with: .ready(slot)) }
    }
}
