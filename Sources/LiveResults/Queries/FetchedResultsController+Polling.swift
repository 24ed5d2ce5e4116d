extension FetchedResultsController {
    /// Refetches every `period` until the returned subscription is cancelled or released, or the
    /// controller is released.
    ///
    /// ```swift
    /// let polling = controller.poll(every: .seconds(30))   // keep it: releasing it stops the polling
    /// ```
    ///
    /// Each tick runs ``performFetch()``, which reports the difference as one change set. A tick that
    /// finds a fetch running (the first one, a refetch, another tick's) is skipped. A failed fetch is
    /// reported as ``ControllerDiagnostic/fetchFailed(_:)`` and counted, as any fetch's failure, and
    /// polling goes on. The task that polls holds the controller weakly.
    ///
    /// - Parameter period: The time between the end of a tick and the next; more than zero. A zero or
    ///   negative period polls nothing: the subscription returned is already cancelled.
    /// - Returns: The subscription; cancel or release it to stop.
    /// - Complexity: O(1): it starts the polling task; each tick costs a ``performFetch()``.
    @inlinable public func poll(every period: Duration) -> EventSubscription {
        guard period > .zero else {
            let subscription = EventSubscription {}
            subscription.cancel()
            return subscription
        }
        let task = Task { [weak self] in
            while !Task.isCancelled {
                do {
                    try await Task.sleep(for: period)
                } catch {
                    return
                }
                guard let controller = self else { return }
                guard !controller._state.withLock({ $0.isFetching }) else { continue }
                _ = try? await controller.performFetch()
            }
        }
        return EventSubscription { task.cancel() }
    }
}
