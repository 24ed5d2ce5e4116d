import Foundation

extension FetchedResultsController: _RelatedChangesListener {
    /// A task waiting in the `async` ``loadAssociatedValue(_:for:)``, to resume outside the lock.
    @usableFromInline typealias AssociationWaiter = _AssociationWaiters<Entity.ID>.Continuation

    /// How many entities one association request covers: the entity read and its neighbours in display
    /// order. 10 by default; 0 means every entity shown.
    ///
    /// Reading the entity at position *i* of ``fetchedObjects`` covers the positions from
    /// `max(0, min(i - size / 2, count - size))`, `size` of them (fewer when fewer are shown).
    ///
    /// - Precondition: The new value is 0 or positive.
    @inlinable public var associatedFetchSize: Int {
        get { _state.withLock { $0.associations.fetchSize } }
        set {
            precondition(newValue >= 0, "associatedFetchSize is 0 (everything) or positive")
            _state.withLock { $0.associations.fetchSize = newValue }
        }
    }

    /// The entity's associated value if it is cached; otherwise `nil`, and a batch request starts.
    ///
    /// The entity is looked up by id, and its shown version's keys count. When its value is not cached,
    /// one request starts for the keys of the ``associatedFetchSize`` entities around it in display
    /// order, leaving out the entities whose keys are all cached or already requested, and each key
    /// once. When the values arrive, one change set reports the entities that got a value as updated:
    /// read them again then. A key without result is cached as "no value", so it is not requested again.
    ///
    /// ```swift
    /// func configure(_ cell: PostCell, with post: Post) {
    ///     cell.author = controller.associatedValue(authors, for: post)?.name ?? "…"
    /// }
    /// ```
    ///
    /// An entity that is not shown has no value: `nil`, and no request. After a request failed, reads
    /// return `nil` without requesting for the association's ``AssociationBackoff`` pause. It compiles
    /// and behaves the same in `async` code; ``loadAssociatedValue(_:for:)`` is the variant that waits.
    ///
    /// - Complexity: O(1) on average when the value is cached. Otherwise O(log *n* + *s* + *w*) for
    ///   *n* entities, *s* sections and a window of *w* entities.
    @inlinable public func associatedValue<Value>(_ association: Association<Entity, Value>, for entity: Entity)
        -> Value?
    {
        let (read, request, follower) = _state.withLock {
            $0.readAssociation(association, for: entity.id, now: .now)
        }
        follower?.attach(self, association: ObjectIdentifier(association))
        if let request { startAssociationRequest(request) }
        guard case .cached(let parts) = read else { return nil }
        return association.assemble(parts)
    }

    /// The entity's associated value, fetched first if it is not cached.
    ///
    /// It returns at once when the value is cached, or when the entity is not shown (`nil`). Otherwise it
    /// starts a request as ``associatedValue(_:for:)`` does, or joins the request in flight, and
    /// waits for it. If the entity is deleted or its keys change meanwhile, it reads again.
    ///
    /// ```swift
    /// let author = try await controller.loadAssociatedValue(authors, for: post)
    /// ```
    ///
    /// - Returns: The value, or `nil` when the entity has none (a missing result or a `nil` key).
    /// - Throws: The request's error; during the backoff after a failure, the last error;
    ///   `CancellationError` if the task is cancelled.
    /// - Complexity: As the synchronous read, plus the wait for the request.
    @inlinable public func loadAssociatedValue<Value>(_ association: Association<Entity, Value>, for entity: Entity)
        async throws -> Value?
    {
        let key = _AssociationWaiters.Key(association: ObjectIdentifier(association), id: entity.id)
        while true {
            let token = _state.withLock { $0.associations.waiters.makeToken() }
            var found: Value??
            try await withTaskCancellationHandler {
                try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
                    let (read, request, follower, isWaiting) = _state.withLock { state in
                        let (read, request, follower) = state.readAssociation(
                            association, for: entity.id, now: .now)
                        guard case .pending = read, !Task.isCancelled else { return (read, request, follower, false) }
                        state.associations.waiters.add(continuation, token: token, for: key)
                        return (read, request, follower, true)
                    }
                    follower?.attach(self, association: ObjectIdentifier(association))
                    if let request { startAssociationRequest(request) }
                    switch read {
                    case .cached(let parts):
                        found = .some(association.assemble(parts))
                        continuation.resume()
                    case .notShown:
                        found = .some(nil)
                        continuation.resume()
                    case .backingOff(let lastError):
                        continuation.resume(throwing: lastError)
                    case .pending:
                        if !isWaiting { continuation.resume(throwing: CancellationError()) }
                    }
                }
            } onCancel: {
                let waiter = _state.withLock { $0.associations.waiters.remove(token, for: key) }
                waiter?.resume(throwing: CancellationError())
            }
            if let found { return found }
        }
    }

    /// Runs an association request in a new task, outside the lock; its results or error come back
    /// through the lock.
    @inlinable func startAssociationRequest(_ request: _AssociationCache<Entity>.Request) {
        Task { [weak self] in
            do {
                let results = try await request.run(request.keys)
                self?.associationResultsArrived(results, for: request)
            } catch {
                self?.associationRequestFailed(request, error: error)
            }
        }
    }

    /// Caches a request's results, delivers the change set of the entities that got a value, resumes the
    /// tasks that waited for them, and starts the follow-up request, if the cache asks for one.
    @inlinable func associationResultsArrived(
        _ results: [_AssociationKey: any Sendable], for request: _AssociationCache<Entity>.Request
    ) {
        commit { state, then in
            let (followUp, waiters) = state.receiveAssociationResults(results, for: request)
            then.resume(waiters)
            then.associationRequest = followUp
        }
    }

    /// Records a failed association request, reports it, and resumes the tasks that waited for it with
    /// its error.
    @inlinable func associationRequestFailed(_ request: _AssociationCache<Entity>.Request, error: any Error) {
        commit { state, then in
            then.delivers = false
            then.report(.associationFailed(error))
            then.resume(state.failAssociationRequest(request, error: error, now: .now), throwing: error)
        }
    }

    /// Applies a batch of a live association's related events, and delivers one change set reporting the
    /// shown entities whose value changed.
    @inlinable func relatedChangesArrived(_ changes: _RelatedChanges, association: ObjectIdentifier) {
        commit { state, _ in state.applyRelatedChanges(changes, to: association) }
    }

    /// Drops every cached associated value and reports the entities that had one, in one change set;
    /// then frees what released snapshots left behind in the storage.
    @inlinable func memoryPressureReceived() {
        commit { state, _ in
            state.dropAssociatedValues()
            state.core.storage.releaseUnsharedVersions()
        }
    }
}
