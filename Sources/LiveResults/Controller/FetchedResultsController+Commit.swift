extension FetchedResultsController {
    /// Changes the controller: the one path of every change, so that each takes its steps in the same order.
    ///
    /// `body` runs under the lock: it changes the state (the results, then the associations they invalidate),
    /// queues the change set for the observers, records in its second argument what is left to do
    /// (``_Commit``), and returns the change's result. Under the same lock, a change that delivers also
    /// releases what coalescing has due and starts the delivering turn, if no thread has one under way. Then,
    /// outside the lock, in this order: the replaced results are freed, the diagnostics reported, a refetch
    /// started, the queue delivered, the association waiters resumed, and an association request started.
    ///
    /// ```swift
    /// commit { state, then in
    ///     let changes = state.core.resort(by: rule)
    ///     state.enqueue(changes, .rebuild)
    ///     return changes
    /// }
    /// ```
    ///
    /// - Returns: The result `body` gave.
    @inlinable func commit<Result>(
        _ body: (inout _ControllerState<Entity>, inout _Commit<Entity>) -> Result
    ) -> Result {
        var then = _Commit<Entity>()
        let result = _state.withLock { state in
            let result = body(&state, &then)
            then.startDelivering(from: &state)
            return result
        }
        then.retired = nil
        for diagnostic in then.diagnostics { report(diagnostic) }
        if then.refetches { refetchInBackground() }
        if let deadline = then.coalescingDeadline { deliverCoalesced(at: deadline) }
        if let first = then.firstDelivery.take() { _deliverPending(startingWith: first) }
        then.resumeWaiters()
        if let request = then.associationRequest { startAssociationRequest(request) }
        return result
    }

    /// Counts something the controller ignored or survived, and reports it.
    @inlinable func count(
        _ counter: WritableKeyPath<ControllerStatistics, Int>, reporting diagnostic: ControllerDiagnostic<Entity>
    ) {
        commit { state, then in
            state.statistics[keyPath: counter] += 1
            then.delivers = false
            then.report(diagnostic)
        }
    }
}
