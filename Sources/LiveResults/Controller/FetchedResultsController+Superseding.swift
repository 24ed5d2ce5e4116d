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
        let token = _state.withLock { $0.fetchCycle.makeWaiterToken() }
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: _FetchWaiters.Continuation) in
                let action = _state.withLock {
                    $0.fetchCycle.wait(
                        superseding: generation, continuation, token: token, isCancelled: Task.isCancelled)
                }
                switch action {
                case .resume: continuation.resume()
                case .fail(let error): continuation.resume(throwing: error)
                case .wait: break
                }
            }
        } onCancel: {
            let waiter = _state.withLock { $0.fetchCycle.cancelWaiter(token) }
            waiter?.resume(throwing: CancellationError())
        }
    }
}
