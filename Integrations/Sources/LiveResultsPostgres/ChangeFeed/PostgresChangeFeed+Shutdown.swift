import NIOConcurrencyHelpers
import PostgresNIO

extension PostgresChangeFeed {
    /// How ``shutdown(timeout:)`` ended.
    public enum ShutdownResult: Sendable, Hashable {
        /// The feed stopped reading, and its temporary slot is dropped, or was found gone, or was left behind
        /// for another reason, which ``PostgresChangeFeedEvent/slotLeft(slot:reason:)`` gave. A named slot is kept.
        case completed
        /// The timeout passed before the feed had stopped and dropped its temporary slot (the database is out of
        /// reach, or slow): the drop is cancelled, and ``PostgresChangeFeedEvent/slotLeft(slot:reason:)`` says
        /// so once it ends. The other running feeds of the database drop that slot (``Slot/temporary``).
        case timedOut
    }

    /// The longest ``shutdown(timeout:)`` waits by default: 5 seconds, within a server's usual graceful shutdown
    /// (swift-service-lifecycle's and Vapor's are 10 seconds or more), and enough for a database that answers to
    /// end the feed's connection and drop its slot.
    public static var defaultShutdownTimeout: Duration { .seconds(5) }

    /// Ends the feed's life: it stops reading, drops its ``Slot/temporary`` slot, and starts reading no more.
    ///
    /// Call it as the process stops gracefully, once nothing needs the feed (after the server's streams ended):
    /// without it, the slot stays behind the process, holding the server's write-ahead log, until another running
    /// feed of the database sweeps it (about 20 seconds later), or forever when there is none. A
    /// ``Slot/named(_:)`` slot is kept, for the next run to resume from. Ending the last subscription (or hold)
    /// drops the slot too, but no one waits for that drop, and a process that exits next may cut it short.
    ///
    /// The subscriptions and holds (``keepReading()``) stay, and get nothing more; those added afterwards get
    /// nothing either, and start no run. Fetches go on without the feed. A second call waits as the first does.
    ///
    /// Waits at most `timeout`, on the continuous clock, whatever the database does: for the reading task to leave
    /// its connection (a query under way ends first, or is abandoned at the timeout), for PostgreSQL to end the
    /// backend that read the slot, and for the drop. A database that is gone or slow makes it return
    /// ``ShutdownResult/timedOut``; so does cancelling the calling task.
    ///
    /// ```swift
    /// let result = await feed.shutdown()
    /// if result == .timedOut { logger.warning("the change feed's slot was left to the other feeds' sweeps") }
    /// ```
    ///
    /// - Parameter timeout: The longest wait; ``defaultShutdownTimeout`` (5 seconds) by default.
    /// - Returns: ``ShutdownResult/completed``, or ``ShutdownResult/timedOut`` when the timeout passed first.
    /// - Complexity: Two or three short queries for a temporary slot (end the backend that read it, drop it), tried
    ///   again every 100 milliseconds while the slot is still active; none for a named slot.
    @discardableResult
    public func shutdown(timeout: Duration = defaultShutdownTimeout) async -> ShutdownResult {
        perform(machine.withLockedValue { $0.shutDown() })
        let finished = _Latch<Bool>()
        let waiter = Task { [machine] in
            var waited: Set<Task<Void, Never>> = []
            while !Task.isCancelled {
                let (readers, pending) = machine.withLockedValue { $0.stoppingReaders }
                if let reader = readers.first(where: { !waited.contains($0) }) {
                    await reader.value
                    waited.insert(reader)
                } else if pending {
                    // A run's task is being started as the shutdown ended that run: the feed records it next.
                    await Task.yield()
                } else {
                    finished.open(with: true)
                    return
                }
            }
        }
        let timer = Task {
            guard (try? await Task.sleep(for: timeout)) != nil else { return }
            finished.open(with: false)
        }
        let completed = await finished.value(orOnCancellation: false)
        waiter.cancel()
        timer.cancel()
        if completed { return .completed }
        for drop in machine.withLockedValue({ $0.shutdownTimedOut() }) { drop.cancel() }
        return .timedOut
    }

    /// The reading task of `run` stopped reading (cancelled: the run ended): drops the run's temporary slot, then
    /// tells the feed, and its events, that it finished.
    func readerStopped(run: Int, slotName: String) async {
        if case .temporary = slot {
            // Not in this task, which is cancelled: the drop's queries must run. A shutdown that gives up cancels it.
            let drop = Task { await dropOwnSlot(slotName) }
            machine.withLockedValue { $0.dropStarted(drop, run: run) }?.cancel()
            await drop.value
        }
        machine.withLockedValue { $0.readerFinished(run: run) }
        events?(.stopped)
    }

    /// Drops the feed's own temporary slot `name`, once the reading connection has left it.
    ///
    /// The slot stays active until the server has ended the closed connection's backend, which finishes the read it
    /// was running first (a read can take seconds after a large transaction): that backend, whose slot no one else
    /// reads, is terminated, and the drop tried again every 100 milliseconds, for up to 10 seconds, or until the
    /// task is cancelled (a shutdown's timeout). A slot left over is dropped by the sweeps of the database's other
    /// feeds.
    private func dropOwnSlot(_ name: String) async {
        var failure = "it stayed active for 10 seconds"
        for _ in 0..<100 {
            guard !Task.isCancelled else {
                failure = "the shutdown's timeout passed first"
                break
            }
            do {
                try await client.query(
                    """
                    SELECT pg_terminate_backend(active_pid) FROM pg_replication_slots
                    WHERE slot_name = \(name) AND active_pid IS NOT NULL
                    """,
                    logger: _silentLogger)
                let dropped = try await client.query(
                    "SELECT pg_drop_replication_slot(slot_name) FROM pg_replication_slots WHERE slot_name = \(name)",
                    logger: _silentLogger
                ).collect()
                // No row: the slot was never created, or another feed's sweep dropped it.
                if !dropped.isEmpty { events?(.slotDropped(slot: name)) }
                return
            } catch {
                failure = String(reflecting: error)
            }
            try? await Task.sleep(for: .milliseconds(100))
        }
        events?(.slotLeft(slot: name, reason: failure))
    }
}
