extension FetchedResultsController {
    /// Applies the events of a source live, until the returned subscription is cancelled or released.
    ///
    /// Events that arrive while a batch is being applied are coalesced into the next batch. Malformed
    /// events the source reports are counted in ``statistics`` and reported as
    /// ``ControllerDiagnostic/malformedEvent(_:)``.
    ///
    /// ```swift
    /// let subscription = controller.observe(bus)
    /// ```
    ///
    /// - Complexity: O(1), plus the source's ``EventSource/subscribe(_:)``; each batch it delivers costs what
    ///   ``apply(_:)-([EntityEvent<Entity>])`` costs.
    @inlinable public func observe(_ source: some EventSource<Entity>) -> EventSubscription {
        source.subscribe(subscriber)
    }

    /// Applies the events of an asynchronous sequence live, until the returned subscription is
    /// cancelled or released, or the sequence ends. If the sequence throws, the subscription ends and
    /// the error is reported as ``ControllerDiagnostic/sourceFailed(_:)``.
    ///
    /// ```swift
    /// let subscription = controller.observe(webSocket.events)   // some AsyncSequence<EntityEvent<Post>, any Error>
    /// ```
    ///
    /// - Complexity: O(1): it starts the task that reads the sequence; each event costs what
    ///   ``apply(_:)-(EntityEvent<Entity>)`` costs.
    @inlinable public func observe<Events: AsyncSequence & Sendable>(_ events: Events) -> EventSubscription
    where Events.Element == EntityEvent<Entity> {
        let subscriber = self.subscriber
        let task = Task { [weak self] in
            do {
                for try await event in events {
                    subscriber.receive(event)
                }
            } catch is CancellationError {
                return
            } catch {
                self?.sourceFailed(error)
            }
        }
        return EventSubscription { task.cancel() }
    }

    /// The subscriber through which sources deliver to this controller; it holds it weakly.
    @inlinable var subscriber: EventSubscriber<Entity> {
        EventSubscriber(
            receive: { [weak self] events in self?.receiveFromSource(events) },
            receiveOne: { [weak self] event in self?.receiveFromSource(event) },
            reportMalformedEvent: { [weak self] error in self?.malformedEventReceived(error) }
        )
    }

    /// Queues events from a source; the first thread to find no drain running applies its events, then drains
    /// the queue, one batch per turn, so events that arrive meanwhile join the next batch.
    @inlinable func receiveFromSource(_ events: [EntityEvent<Entity>]) {
        guard _state.withLock({ $0.inbox.receive(events) }) == .drain else { return }
        apply(events)
        drainInbox()
    }

    /// Queues one event from a source, as ``receiveFromSource(_:)-([EntityEvent<Entity>])`` does a batch: applied
    /// at once by a thread that finds no drain running, without a batch of its own.
    @inlinable func receiveFromSource(_ event: EntityEvent<Entity>) {
        guard _state.withLock({ $0.inbox.receive(CollectionOfOne(event)) }) == .drain else { return }
        apply(event)
        drainInbox()
    }

    /// Applies what the inbox queued while this thread applied, one batch per turn, until nothing waits.
    @inlinable func drainInbox() {
        while true {
            let (action, released) = _state.withLock { ($0.inbox.nextBatch(), $0.inbox.takeReleased()) }
            // Outside the lock: a resumed task may read the controller at once.
            for continuation in released { continuation.resume() }
            guard case .apply(let batch) = action else { return }
            apply(batch)
        }
    }

    /// Returns once the controller has applied every batch of events delivered to it before the call.
    ///
    /// A source may deliver a batch while another thread applies one: the batch waits in the controller's inbox
    /// for that thread, and the source's delivery returns before it is applied. After this returns, ``snapshot``
    /// shows every event delivered before the call (a coalescing controller, at the end of its interval; an
    /// `EntityEvent.invalidated`, once its refetch shows its results). Returns at once when no batch waits and none
    /// is being applied.
    ///
    /// ```swift
    /// try await source.synchronize()              // every committed change delivered
    /// await controller.waitForDeliveredEvents()   // and applied
    /// ```
    ///
    /// - Complexity: O(1); the wait lasts until the batch being applied, and the one made of the batches waiting now,
    ///   have been applied.
    public func waitForDeliveredEvents() async {
        await withCheckedContinuation { continuation in
            if !_state.withLock({ $0.inbox.waitForApplied(continuation) }) { continuation.resume() }
        }
    }

    /// Counts and reports an event that a source could not make sense of.
    @inlinable func malformedEventReceived(_ error: any Error) {
        count(\.malformedEvents, reporting: .malformedEvent(error))
    }

    /// Counts and reports an event sequence that threw: its subscription has ended.
    @inlinable func sourceFailed(_ error: any Error) {
        count(\.failedSources, reporting: .sourceFailed(error))
    }
}
