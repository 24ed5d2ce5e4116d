import LiveResults
import NIOConcurrencyHelpers

extension PostgresChangeFeed {
    /// Adds a table's subscription, starting a run of the reading task if it is the first.
    func add(_ subscription: _FeedSubscription, onRemove: @escaping @Sendable () -> Void) -> EventSubscription {
        let (id, action) = machine.withLockedValue { $0.subscribe(subscription) }
        return started(id, action, onRemove: onRemove)
    }

    /// Keeps the feed reading while none of its tables is followed: its slot stays, the server's log is freed as the
    /// feed reads past it, its lag is measured, its sweeps of abandoned slots go on, and the first subscription
    /// after a quiet spell finds the slot ready instead of creating one (which waits for the transactions running
    /// on the whole server). Without a hold, the feed stops with its tables' last subscription.
    ///
    /// A server that follows its tables for as long as it runs holds its feed for its life: then a process whose
    /// clients all left still drops the slots of processes that died, and answers the next query without delay. It
    /// calls ``shutdown(timeout:)`` as it stops, which ends the run whatever holds it, and drops its temporary slot.
    ///
    /// ```swift
    /// let hold = feed.keepReading()
    /// // …
    /// hold.cancel()   // the feed stops once no table is followed either
    /// ```
    ///
    /// - Returns: The hold: cancel it, or release it, to let the feed stop.
    /// - Complexity: O(1); while held, each transaction of the publication is read and dropped (no table's
    ///   subscriber decodes it).
    public func keepReading() -> EventSubscription {
        let (id, action) = machine.withLockedValue { $0.hold() }
        return started(id, action, onRemove: {})
    }

    /// Does what adding subscription or hold `id` asks (`action`), and returns what removes it.
    private func started(
        _ id: Int, _ action: _FeedStateMachine.SubscribeAction, onRemove: @escaping @Sendable () -> Void
    ) -> EventSubscription {
        switch action {
        case .startReading(let run):
            let task = Task { await self.read(run: run) }
            machine.withLockedValue { $0.taskStarted(task, run: run) }?.cancel()
        case .wake(let wake):
            perform(wake)
        case .shutDown:
            break
        }
        return EventSubscription { [self] in
            guard let action = machine.withLockedValue({ $0.unsubscribe(id) }) else { return }
            perform(action)
            onRemove()
        }
    }

    /// Does what removing a subscription, or shutting the feed down, asks: cancels the reading task of a run that
    /// ended, and lets the fetches waiting for it go on.
    func perform(_ action: _FeedStateMachine.UnsubscribeAction) {
        action.cancel?.cancel()
        // Nothing is delivered any more: fetches waiting for deliveries go on.
        action.endDeliveryWaits.forEach { $0.open(with: .ended) }
        for (latch, slot) in action.resumeFetches { latch.open(with: .ready(slot)) }
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
