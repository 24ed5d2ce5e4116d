extension FetchedResultsController {
    /// Refetches every `period` until the returned subscription is cancelled or released, or the
    /// controller is released.
    ///
    /// ```swift
    /// let polling = controller.poll(every: .seconds(30))   // keep it: releasing it stops the polling
    /// ```
    ///
    /// Each tick runs ``performFetch()``, which reports the difference as one change set. The ticks keep a
    /// fixed rate, one `period` after another from the call, as a repeating timer does: a fetch that takes a
    /// third of the period still leaves the results at most one period old. A tick that finds a fetch
    /// running (the first one, a refetch, a previous tick's that outlasted the period) is skipped, so
    /// fetches never overlap and a slow one makes the next fetch wait for the following tick. A failed fetch
    /// is reported as ``ControllerDiagnostic/fetchFailed(_:)`` and counted, as any fetch's failure, and
    /// polling goes on. The task that polls holds the controller weakly.
    ///
    /// - Parameter period: The time between two ticks; more than zero. A zero or negative period polls
    ///   nothing: the subscription returned is already cancelled.
    /// - Returns: The subscription; cancel or release it to stop.
    /// - Complexity: O(1): it starts the polling task; each tick costs a ``performFetch()``.
    @inlinable public func poll(every period: Duration) -> EventSubscription {
        poll(every: period, on: _state.withLock { $0.clock })
    }

    /// ``poll(every:)`` on any clock: the controller's (``_clock``, which tests set to a manual one).
    @usableFromInline func poll<C: Clock>(every period: Duration, on clock: C) -> EventSubscription
    where C.Duration == Duration {
        guard period > .zero else {
            let subscription = EventSubscription {}
            subscription.cancel()
            return subscription
        }
        let task = Task { [weak self] in
            var tick = clock.now.advanced(by: period)
            while !Task.isCancelled {
                do {
                    try await clock.sleep(until: tick, tolerance: nil)
                } catch {
                    return
                }
                guard let controller = self else { return }
                if !controller._state.withLock({ $0.fetchCycle.isFetching }) {
                    _ = try? await controller.performFetch()
                }
                tick = _PollingSchedule.tick(after: tick, every: period, now: clock.now)
            }
        }
        return EventSubscription { task.cancel() }
    }
}
