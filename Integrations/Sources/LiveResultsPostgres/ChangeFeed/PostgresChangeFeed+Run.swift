import NIOConcurrencyHelpers

/// What the reading task of a run tells the feed, and its waits. Each call names the run: once that run has ended
/// (its last subscription did), the call changes nothing, even if a new run has started meanwhile.
extension PostgresChangeFeed {
    /// Whether a fetch waits for ``advanced(run:to:)``: the reading task then learns the position it reads up to.
    var awaitsDeliveries: Bool { machine.withLockedValue { $0.awaitsDeliveries } }

    /// The reading task of `run` has handed every transaction that committed up to `position` to the
    /// subscriptions: each fetch waiting for that gets, after the deliveries queued to its table's subscriptions,
    /// a marker that resumes it once they all ran.
    func advanced(run: Int, to position: UInt64) {
        appliedPosition(position)
        for (latch, subscriptions) in machine.withLockedValue({ $0.advanced(run: run, to: position) }) {
            _FeedSubscription.whenDelivered(subscriptions) { latch.open(with: .delivered) }
        }
    }

    /// The reading task of `run` reads its slot: `created` it (`replaced` when that replaces one the run read), or
    /// found it (at the run's start, or again after a lost connection: the same slot, which fetches may keep
    /// meeting). A replaced slot's subscriptions are sent `.invalidated`, and the fetches waiting for deliveries
    /// go on (their subscriptions refetch).
    func slotReady(run: Int, created: Bool, replaced: Bool) {
        let action = machine.withLockedValue { $0.slotReady(run: run, created: created, replaced: replaced) }
        action.invalidate.forEach { $0.invalidate() }
        action.endDeliveryWaits.forEach { $0.open(with: .ended) }
    }

    /// An attempt of the reading task of `run` failed: fetches waiting for the run's first attempt go on without a
    /// slot.
    func attemptFailed(run: Int) {
        for (latch, slot) in machine.withLockedValue({ $0.attemptFailed(run: run) }) { latch.open(with: .ready(slot)) }
    }

    /// Waits `requested` on the feed's clock before the next read of the reading task of `run`, or less if
    /// ``wakeReader()`` is called meanwhile (or was, during the read that just ended), or ``wake()`` is and the
    /// wait is a back-off.
    func pause(run: Int, for requested: Duration) async {
        let latch = _Latch<Void>()
        let action = machine.withLockedValue {
            $0.pauseStarting(run: run, requested: requested, readInterval: readInterval, pause: latch)
        }
        guard case .wait(let duration) = action else { return }
        let timer = Task { [clock] in
            guard (try? await clock.sleep(for: duration)) != nil else { return }
            latch.open(with: ())
        }
        await latch.value(orOnCancellation: ())
        timer.cancel()
        machine.withLockedValue { $0.pauseEnded(run: run, pause: latch) }
    }

    /// The reading task of `run` follows a replication stream: ``wakeReader()`` calls `wake`.
    func streamStarted(run: Int, wake: @escaping @Sendable () -> Void) {
        machine.withLockedValue { $0.streamStarted(run: run, wake: wake) }
    }

    /// The stream of `run` ended: the reading task reconnects, or stops.
    func streamEnded(run: Int) {
        machine.withLockedValue { $0.streamEnded(run: run) }
    }
}
