/// Pausing and coalescing: the transitions of the holds that keep change sets back from the observers.
extension _ControllerState {
    /// The results the observers have: those frozen by a pause, those of the last coalesced delivery,
    /// or the current ones.
    @inlinable var observedStorage: _SectionedStorage<Entity> {
        paused?.base ?? coalescing.held?.base ?? core.storage
    }

    /// What readers see: the snapshot frozen by a pause, or the current results.
    @inlinable var visibleSnapshot: FetchedResultsSnapshot<Entity> {
        FetchedResultsSnapshot(_storage: paused?.base ?? core.storage)
    }

    /// Whether a coalescing interval is set: a change may then have to be delivered, or a delivery
    /// scheduled, although nothing was queued.
    @inlinable var isCoalescing: Bool { holdsChanges && coalescing.held != nil }

    /// Queues a change set for the observers registered now, past any hold, as the next version.
    ///
    /// - Parameter rebuilt: Whether a fetch, a resort or a reset rebuilt the results since the version
    ///   the observers have.
    @inlinable mutating func appendDelivery(_ changes: ChangeSet<Entity>, rebuilt: Bool) {
        guard !changes.isEmpty else { return }
        if updates.isRecording {
            feedUpdates(changes, rebuilt: rebuilt)
        } else {
            updates.sequence += 1
            if rebuilt { updates.rebuilds += 1 }
        }
        if !queueObservers.isEmpty {
            for observer in queueObservers.values {
                if let action = observer(changes, core.storage, core.rebuilds, callbackScheduler) {
                    engine.appendPending(.action(action))
                }
            }
        }
        let delegate = delegate
        let callsBack = delegate != nil || !engine.subscribers.observerList.isEmpty
        guard callsBack || !engine.subscribers.changeSubscriberList.isEmpty else { return }
        // The delivery made in its record, not returned and then stored: with ``_DeliveryEngine/Subscribers/delivery(_:after:delegate:delegateTakesSnapshot:scheduler:version:)``,
        // a delivered event cost some 2,000 instructions more (copies of the change set and the snapshot).
        let record = Engine.DeliveryRecord(
            Delivery(
                changes: changes,
                snapshot: callsBack ? snapshot : nil,
                delegate: delegate,
                scheduler: callbackScheduler,
                changeSubscribers: engine.subscribers.changeSubscriberList,
                observers: engine.subscribers.observerList,
                version: observedVersion
            ), reusing: &engine.spareRecord)
        engine.appendPending(.delivery(record))
    }

    /// Freezes what readers see and holds every change set back until ``resume()``. Changes held by
    /// coalescing are delivered first, so that the observers have the frozen version.
    @inlinable mutating func pause() {
        guard paused == nil else { return }
        flushCoalesced()
        paused = _HeldChanges(base: core.storage)
    }

    /// Ends a pause, queuing and returning the one change set from the frozen version to the current one.
    @inlinable mutating func resume() -> ChangeSet<Entity> {
        guard let held = paused else { return ChangeSet() }
        paused = nil
        let changes = held.changeSet(to: core.storage)
        appendDelivery(changes, rebuilt: held.isRebuilt)
        if coalescing.isOn { coalescing.resumed(at: clock.now, to: core.storage) }
        return changes
    }

    /// Queues the changes coalescing holds, whether or not their interval is over.
    @inlinable mutating func flushCoalesced() {
        guard coalescing.isOn else { return }
        _ = run(coalescing.flush(at: clock.now, to: core.storage))
    }

    /// Queues the changes coalescing holds if their interval is over.
    ///
    /// - Returns: When to look again, if they are not due and no delivery is scheduled yet.
    @inlinable mutating func releaseCoalesced() -> _ControllerClock.Instant? {
        run(coalescing.release(at: clock.now, to: core.storage))
    }

    /// Runs what a transition of coalescing returned, under the lock: queues its change set.
    ///
    /// - Returns: The instant of the wake-up to schedule, once the lock is released.
    @inlinable mutating func run(_ action: _Coalescing<Entity>.Action) -> _ControllerClock.Instant? {
        switch action {
        case .nothing: return nil
        case .deliver(let changes, let rebuilt):
            appendDelivery(changes, rebuilt: rebuilt)
            return nil
        case .wakeUp(let deadline): return deadline
        }
    }

    /// Advances the update streams with a delivered change set; their waiting consumers resume in order
    /// with the deliveries.
    @inlinable mutating func feedUpdates(_ changes: ChangeSet<Entity>, rebuilt: Bool) {
        var waiters: [_UpdateWaiter] = []
        // What led to this version goes to the feed; the next version's record starts empty.
        let undo = core.undo.take()
        statistics.collapsedUpdateBacklogs += updates.advance(
            changes, undo: undo, after: core.storage, rebuilt: rebuilt
        ) {
            waiters.append($0)
        }
        if updates.isRecording { core.undo = _VersionUndo() }
        guard !waiters.isEmpty else { return }
        engine.appendPending(.action { [waiters] in waiters.forEach { $0.resume() } })
    }

    /// Sets the coalescing interval; a negative one counts as zero. Turning coalescing off delivers what
    /// it held at once.
    @inlinable mutating func setCoalescingInterval(_ interval: Duration) {
        let action = coalescing.setInterval(
            interval, at: clock.now, observed: paused?.base ?? core.storage, current: core.storage)
        _ = run(action)
    }
}
