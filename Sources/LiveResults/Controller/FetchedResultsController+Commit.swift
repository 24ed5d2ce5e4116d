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
    /// Always inlined: it is the path of every event, and a call of it, with its closure, cost some 300
    /// instructions per event. The delivery it starts is returned from the lock beside the result, not
    /// stored in the ``_Commit``, whose fields the compiler reaches through value witnesses.
    ///
    /// - Returns: The result `body` gave.
    @inline(__always) @inlinable func commit<Result>(
        _ body: (inout _ControllerState<Entity>, inout _Commit<Entity>) -> Result
    ) -> Result {
        var then = _Commit<Entity>()
        let (result, first, coalescingDeadline) = _state.withLock {
            state -> (Result, _ControllerState<Entity>.Pending?, _ControllerClock.Instant?) in
            let result = body(&state, &then)
            guard then.delivers else { return (result, nil, nil) }
            // What coalescing has due is released under the same lock, and the delivering turn started, if no
            // thread has one under way: the lock is taken once per change, not again to deliver.
            let deadline = state.isCoalescing ? state.releaseCoalesced() : nil
            return (result, state.engine.startDelivering(), deadline)
        }
        then.retired = nil
        for diagnostic in then.diagnostics { report(diagnostic) }
        if then.refetches { refetchInBackground() }
        if let coalescingDeadline { deliverCoalesced(at: coalescingDeadline) }
        if let first { _deliverPending(startingWith: first) }
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
