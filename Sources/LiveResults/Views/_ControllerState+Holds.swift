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

    /// Queues a change set for the observers registered now, past any hold.
    @inlinable mutating func appendDelivery(_ changes: ChangeSet<Entity>) {
        guard !changes.isEmpty else { return }
        observedVersion &+= 1
        if !queueObservers.isEmpty {
            for observer in queueObservers.values {
                if let action = observer(changes, core.storage) { appendPending(.action(action)) }
            }
        }
        let delegate = delegate
        let callsBack = delegate != nil || !observerList.isEmpty
        guard callsBack || !continuationList.isEmpty else { return }
        appendPending(
            .delivery(
                DeliveryRecord(
                    Delivery(
                        changes: changes,
                        snapshot: callsBack ? snapshot : nil,
                        delegate: delegate,
                        scheduler: callbackScheduler,
                        continuations: continuationList,
                        observers: observerList,
                        version: observedVersion
                    ))
            )
        )
    }

    /// Freezes what readers see and holds every change set back until ``resume(at:)``. Changes held by
    /// coalescing are delivered first, so that the observers have the frozen version.
    @inlinable mutating func pause(at now: ContinuousClock.Instant) {
        guard paused == nil else { return }
        flushCoalesced(at: now)
        paused = _HeldChanges(base: core.storage)
    }

    /// Ends a pause, queuing and returning the one change set from the frozen version to the current one.
    @inlinable mutating func resume(at now: ContinuousClock.Instant) -> ChangeSet<Entity> {
        guard let held = paused else { return ChangeSet() }
        paused = nil
        let changes = held.changeSet(to: core.storage)
        appendDelivery(changes)
        if coalescing.held != nil {
            coalescing.held = _HeldChanges(base: core.storage)
            coalescing.lastDelivery = now
        }
        return changes
    }

    /// Queues the changes coalescing holds, whether or not their interval is over.
    @inlinable mutating func flushCoalesced(at now: ContinuousClock.Instant) {
        guard coalescing.held?.isEmpty == false else { return }
        appendDelivery(coalescing.take(to: core.storage, at: now))
    }

    /// Queues the changes coalescing holds if their interval is over.
    ///
    /// - Returns: When to look again, if they are not due and no delivery is scheduled yet.
    @inlinable mutating func releaseCoalesced(at now: ContinuousClock.Instant) -> ContinuousClock.Instant? {
        switch coalescing.due(at: now) {
        case .nothing: return nil
        case .now:
            appendDelivery(coalescing.take(to: core.storage, at: now))
            return nil
        case .at(let deadline): return deadline
        }
    }

    /// Sets the coalescing interval; a negative one counts as zero. Turning coalescing off delivers what
    /// it held at once.
    @inlinable mutating func setCoalescingInterval(_ interval: Duration, at now: ContinuousClock.Instant) {
        let interval = Swift.max(.zero, interval)
        if interval == .zero {
            flushCoalesced(at: now)
            coalescing.held = nil
        } else if coalescing.held == nil {
            coalescing.held = _HeldChanges(base: paused?.base ?? core.storage)
        }
        coalescing.interval = interval
        // A delivery scheduled by the old interval may come too late for the new one.
        coalescing.scheduled = nil
    }
}
