extension FetchedResultsController {
    /// What a change under the lock returns to ``commit(_:)``, for this controller's entities.
    @usableFromInline typealias Commit<Result> = _Commit<Entity, Result>

    /// Changes the controller: the one path of every change, so that each takes its steps in the same order.
    ///
    /// `body` runs under the lock: it changes the state (the results, then the associations they invalidate),
    /// queues the change set for the observers, and says what is left to do (``_Commit``). Under the same lock,
    /// a change that delivers also releases what coalescing has due and starts the delivering turn, if no
    /// thread has one under way: a lock taken once per change, not again to deliver. Then, outside the lock,
    /// in this order: the replaced results are freed, the diagnostics reported, a refetch started, the queue
    /// delivered, the association waiters resumed, and an association request started.
    ///
    /// - Returns: The result `body` gave.
    @inlinable func commit<Result>(_ body: (inout _ControllerState<Entity>) -> _Commit<Entity, Result>) -> Result {
        var (outcome, first, coalescingDeadline) = _state.withLock {
            state -> (_Commit<Entity, Result>, _ControllerState<Entity>.Pending?, ContinuousClock.Instant?) in
            let outcome = body(&state)
            guard outcome.delivers else { return (outcome, nil, nil) }
            let deadline = state.isCoalescing ? state.releaseCoalesced(at: .now) : nil
            return (outcome, state.engine.startDelivering(), deadline)
        }
        outcome.retired = nil
        for diagnostic in outcome.diagnostics { report(diagnostic) }
        if outcome.refetches { refetchInBackground() }
        if let coalescingDeadline { deliverCoalesced(at: coalescingDeadline) }
        if let first { _deliverPending(startingWith: first) }
        outcome.resumeWaiters()
        if let request = outcome.associationRequest { startAssociationRequest(request) }
        return outcome.result
    }

    /// Counts something the controller ignored or survived, and reports it.
    @inlinable func count(
        _ counter: WritableKeyPath<ControllerStatistics, Int>, reporting diagnostic: ControllerDiagnostic<Entity>
    ) {
        commit { state in
            state.statistics[keyPath: counter] += 1
            return .reporting(diagnostic)
        }
    }
}
