extension FetchedResultsController {
    /// Waits, in a ``performFetch()`` that a newer fetch or a reset superseded, until the newest fetch has
    /// settled: it returns when that fetch showed its results, throws its error when it failed, and returns
    /// when a reset followed the superseded fetch. A fetch that supersedes the newest in turn prolongs the wait.
    ///
    /// The fetch that settles, or the reset, resumes the waiters through ``commit(_:)``, after the delivery it
    /// starts. Nothing here runs per event.
    ///
    /// - Parameter generation: The superseded fetch's generation.
    /// - Throws: The newest fetch's error; `CancellationError` when the calling task is cancelled.
    @usableFromInline func waitForNewestFetch(superseding generation: UInt64) async throws {
        let token = _state.withLock { $0.fetchCycle.waiters.makeToken() }
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: _FetchWaiters.Continuation) in
                let outcome = _state.withLock { state -> _SupersededFetch in
                    let outcome = state.fetchCycle.outcome(ofSuperseded: generation)
                    guard case .waits = outcome else { return outcome }
                    guard !Task.isCancelled else { return .fails(CancellationError()) }
                    state.fetchCycle.waiters.add(continuation, token: token)
                    return .waits
                }
                switch outcome {
                case .returns: continuation.resume()
                case .fails(let error): continuation.resume(throwing: error)
                case .waits: break
                }
            }
        } onCancel: {
            let waiter = _state.withLock { $0.fetchCycle.waiters.remove(token) }
            waiter?.resume(throwing: CancellationError())
        }
    }
}
