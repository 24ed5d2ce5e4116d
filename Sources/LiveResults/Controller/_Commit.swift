/// What a change made under a ``FetchedResultsController``'s lock leaves to do once the lock is released,
/// and what it returns: the body of ``FetchedResultsController/commit(_:)`` makes one, and `commit` carries
/// it out in its one order.
///
/// Everything here is done outside the lock because it runs code that is not the controller's (diagnostics,
/// observers, resumed tasks) or frees memory that may be large (replaced results).
@usableFromInline struct _Commit<Entity: FetchableEntity, Result> {
    /// What `commit` returns.
    @usableFromInline var result: Result
    /// Whether to deliver what the change queued for the observers (and what coalescing has due).
    @usableFromInline var delivers: Bool
    /// What to report to the controller's diagnostics handler, in order.
    @usableFromInline var diagnostics: [ControllerDiagnostic<Entity>]
    /// Tasks waiting for associated values, to resume after the delivery.
    @usableFromInline var waiters: [_AssociationWaiters<Entity.ID>.Continuation]
    /// The error the waiters resume with; `nil` resumes them normally (they read again).
    @usableFromInline var waitersError: (any Error)?
    /// Whether an invalidation asks for a refetch, started before the delivery.
    @usableFromInline var refetches: Bool
    /// An association request to start, after the waiters resume.
    @usableFromInline var associationRequest: _AssociationCache<Entity>.Request?
    /// Results the change replaced, kept so that they are freed after the lock is released, not under it.
    @usableFromInline var retired: _SectionedStorage<Entity>?

    /// A change's outcome: `result`, and the steps to take after the lock is released.
    ///
    /// - Parameters:
    ///   - delivers: Whether the change may have queued something for the observers; `false` for a change
    ///     of bookkeeping alone (a count, a failure), which leaves what coalescing holds where it is.
    ///   - reporting: The diagnostics to report.
    ///   - resuming: The association waiters to resume, with `waitersError` if it is not `nil`.
    @inlinable init(
        _ result: Result, delivers: Bool = true, reporting diagnostics: [ControllerDiagnostic<Entity>] = [],
        resuming waiters: [_AssociationWaiters<Entity.ID>.Continuation] = [], throwing waitersError: (any Error)? = nil
    ) {
        self.result = result
        self.delivers = delivers
        self.diagnostics = diagnostics
        self.waiters = waiters
        self.waitersError = waitersError
        self.refetches = false
        self.associationRequest = nil
        self.retired = nil
    }

    /// A change of bookkeeping alone: nothing to deliver, `diagnostic` to report.
    @inlinable static func reporting(_ diagnostic: ControllerDiagnostic<Entity>) -> Self where Result == Void {
        Self((), delivers: false, reporting: [diagnostic])
    }

    /// Resumes the waiters, with the error if there is one: the last step of a commit.
    @inlinable func resumeWaiters() {
        if let waitersError {
            waiters.forEach { $0.resume(throwing: waitersError) }
        } else {
            waiters.forEach { $0.resume() }
        }
    }
}
