import LiveResults
import NIOConcurrencyHelpers

extension PostgresChangeFeed {
    /// Adds a table's subscription, starting a run of the reading task if it is the first.
    func add(_ subscription: _FeedSubscription, onRemove: @escaping @Sendable () -> Void) -> EventSubscription {
        let (id, action) = machine.withLockedValue { $0.subscribe(subscription) }
        switch action {
        case .startReading(let run):
            let task = Task { await self.read(run: run) }
            machine.withLockedValue { $0.taskStarted(task, run: run) }?.cancel()
        case .wake(let wake):
            perform(wake)
        }
        return EventSubscription { [self] in
            guard let action = machine.withLockedValue({ $0.unsubscribe(id) }) else { return }
            action.cancel?.cancel()
            // Nothing is delivered any more: fetches waiting for deliveries go on.
            action.endDeliveryWaits.forEach { $0.open(with: .ended) }
            for (latch, slot) in action.resumeFetches { latch.open(with: .ready(slot)) }
            onRemove()
        }
    }

    /// The subscriptions, for the reading task.
    var subscriptions: [_FeedSubscription] {
        machine.withLockedValue { $0.subscriptions }
    }

    /// Wakes the reading task as the state machine said.
    func perform(_ wake: _FeedStateMachine.WakeAction) {
        switch wake {
        case .none: break
        case .openPause(let pause): pause.open(with: ())
        case .wakeStream(let wake): wake()
        }
    }

    /// Makes the reading task read at once: a fetch waits for its next step, which a wait grown long while the log
    /// had nothing for the feed must not delay. A wait ends; during a read, the next wait is skipped.
    func wakeReader() {
        perform(machine.withLockedValue { $0.wakeForFetch() })
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
        perform(machine.withLockedValue { $0.writeAnnounced() })
    }
}
