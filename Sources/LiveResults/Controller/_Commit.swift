/// What a change made under a ``FetchedResultsController``'s lock leaves to do once the lock is released: the
/// body of ``FetchedResultsController/commit(_:)`` records it, and `commit` carries it out in its one order.
///
/// Everything here is done outside the lock because it runs code that is not the controller's (diagnostics,
/// observers, resumed tasks) or frees memory that may be large (replaced results). The body records into a
/// value that `commit` owns, rather than returning one with its result: a generic value returned through the
/// lock was copied and destroyed through its value witnesses, some 3,700 instructions per event.
@usableFromInline struct _Commit<Entity: FetchableEntity> {
    @usableFromInline typealias Waiter = _AssociationWaiters<Entity.ID>.Continuation

    /// Whether to deliver what the change queued for the observers (and what coalescing has due); `false`
    /// for a change of bookkeeping alone (a count, a failure), which leaves what coalescing holds where it is.
    @usableFromInline var delivers = true
    /// What to report to the controller's diagnostics handler, in order.
    @usableFromInline var diagnostics: [ControllerDiagnostic<Entity>] = []
    /// Tasks waiting for associated values, or superseded fetches waiting for the newest one, to resume after
    /// the delivery.
    @usableFromInline var waiters: [Waiter] = []
    /// The error the waiters resume with; `nil` resumes them normally (they read again).
    @usableFromInline var waitersError: (any Error)?
    /// Whether an invalidation asks for a refetch, started before the delivery.
    @usableFromInline var refetches = false
    /// An association request to start, after the waiters resume.
    @usableFromInline var associationRequest: _AssociationCache<Entity>.Request?
    /// Results the change replaced, kept so that they are freed after the lock is released, not under it.
    @usableFromInline var retired: _SectionedStorage<Entity>?

    @inlinable init() {}

    /// Reports `diagnostic` once the lock is released.
    @inlinable mutating func report(_ diagnostic: ControllerDiagnostic<Entity>) {
        diagnostics.append(diagnostic)
    }

    /// Resumes `waiters` after the delivery, with `error` if it is not `nil`: the waiters of the change (a
    /// change has one set of them; assigned, not appended, which would allocate for the empty ones).
    @inlinable mutating func resume(_ waiters: [Waiter], throwing error: (any Error)? = nil) {
        self.waiters = waiters
        waitersError = error
    }

    /// Resumes the waiters, with the error if there is one.
    @inlinable func resumeWaiters() {
        if let waitersError {
            waiters.forEach { $0.resume(throwing: waitersError) }
        } else {
            waiters.forEach { $0.resume() }
        }
    }
}
