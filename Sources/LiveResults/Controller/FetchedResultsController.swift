import Foundation

/// A live, sorted, sectioned view of entities that tells exactly what changed.
///
/// The controller fetches entities with its ``FetchDefinition``, orders them by section name, then by
/// the sort descriptors, then by insertion order, and groups them into sections. Live
/// ``EntityEvent``s keep it current; every change produces a ``ChangeSet`` that its delegate and its
/// ``changes`` sequence receive.
///
/// ```swift
/// let controller = FetchedResultsController(
///     definition: FetchDefinition(request: { try await store.fetchPosts() }),
///     sortDescriptors: [SortDescriptor(\Post.score, order: .reverse)],
///     sectionNameKeyPath: \Post.topic
/// )
/// try await controller.performFetch()
/// let subscription = controller.observe(bus)     // live events
/// for await changes in controller.changes { render(controller.snapshot, changes) }
/// ```
///
/// The controller is `Sendable`: any thread or task may read it and apply events. Each read is
/// consistent; use ``snapshot`` to read several values from the same moment.
public final class FetchedResultsController<Entity: FetchableEntity>: Sendable {
    /// What the controller fetches and includes.
    public let definition: FetchDefinition<Entity>

    @usableFromInline let _state: _Lock<_ControllerState<Entity>>
    @usableFromInline let _diagnostics: (@Sendable (ControllerDiagnostic<Entity>) -> Void)?
    /// The windows of the results (see ``window(_:)``), made with the first of them.
    @usableFromInline let _windows = _Lock<(registry: _WindowRegistry<Entity>, subscription: EventSubscription)?>(nil)

    @inlinable init(
        definition: FetchDefinition<Entity>,
        rule: _SortRule<Entity>,
        sectionNameKeyPath: (KeyPath<Entity, String> & Sendable)?,
        sectionOrder: SectionOrder,
        memoryPressure: (any MemoryPressureSource)?,
        diagnostics: (@Sendable (ControllerDiagnostic<Entity>) -> Void)?
    ) {
        self.definition = definition
        let ordering = _EntityOrdering(
            sectionNameKeyPath: sectionNameKeyPath, sectionOrder: sectionOrder, rule: rule)
        var state = _ControllerState(core: _ResultsCore(ordering: ordering, isIncluded: definition.isIncluded))
        definition.associations.forEach { state.associations.register($0) }
        self._state = _Lock(state)
        self._diagnostics = diagnostics
        if let subscription = memoryPressure?.subscribe({ [weak self] in self?.memoryPressureReceived() }) {
            _state.withLock { $0.associations.memoryPressureSubscription = subscription }
        }
        _state.withLock { $0.associations.owner = ObjectIdentifier(self) }
        for association in definition.associations {
            association._erased.follower?.attach(self, association: ObjectIdentifier(association))
        }
    }

    /// Creates a controller ordered by Foundation sort descriptors.
    ///
    /// - Parameters:
    ///   - definition: How to fetch the entities and which to include.
    ///   - sortDescriptors: The order inside a section; ties keep insertion order.
    ///   - sectionNameKeyPath: The section of each entity; `nil` puts everything in one section named `""`.
    ///   - sectionOrder: The order of the sections; ascending by name by default.
    ///   - memoryPressure: On each of its signals, the controller drops its cached associated values
    ///     (see ``associatedValue(_:for:)``) and frees the earlier versions of entities that only
    ///     released snapshots held, in O(*n*) under its lock.
    ///   - diagnostics: Receives what the controller ignored or survived (see ``ControllerDiagnostic``).
    @inlinable public convenience init(
        definition: FetchDefinition<Entity>,
        sortDescriptors: [SortDescriptor<Entity>] = [],
        sectionNameKeyPath: (KeyPath<Entity, String> & Sendable)? = nil,
        sectionOrder: SectionOrder = .ascending,
        memoryPressure: (any MemoryPressureSource)? = nil,
        diagnostics: (@Sendable (ControllerDiagnostic<Entity>) -> Void)? = nil
    ) {
        self.init(
            definition: definition,
            rule: _EntityOrdering.rule(of: sortDescriptors),
            sectionNameKeyPath: sectionNameKeyPath,
            sectionOrder: sectionOrder,
            memoryPressure: memoryPressure,
            diagnostics: diagnostics
        )
    }

    /// Creates a controller ordered by any sort comparator.
    ///
    /// - Parameters:
    ///   - definition: How to fetch the entities and which to include.
    ///   - sortComparator: The order inside a section; ties keep insertion order.
    ///   - sectionNameKeyPath: The section of each entity; `nil` puts everything in one section named `""`.
    ///   - sectionOrder: The order of the sections; ascending by name by default.
    ///   - memoryPressure: On each of its signals, the controller drops its cached associated values
    ///     (see ``associatedValue(_:for:)``) and frees the earlier versions of entities that only
    ///     released snapshots held, in O(*n*) under its lock.
    ///   - diagnostics: Receives what the controller ignored or survived (see ``ControllerDiagnostic``).
    @inlinable public convenience init<Comparator: SortComparator & Sendable>(
        definition: FetchDefinition<Entity>,
        sortComparator: Comparator,
        sectionNameKeyPath: (KeyPath<Entity, String> & Sendable)? = nil,
        sectionOrder: SectionOrder = .ascending,
        memoryPressure: (any MemoryPressureSource)? = nil,
        diagnostics: (@Sendable (ControllerDiagnostic<Entity>) -> Void)? = nil
    ) where Comparator.Compared == Entity {
        self.init(
            definition: definition,
            rule: _SortRule(compare: { sortComparator.compare($0, $1) }),
            sectionNameKeyPath: sectionNameKeyPath,
            sectionOrder: sectionOrder,
            memoryPressure: memoryPressure,
            diagnostics: diagnostics
        )
    }

    // MARK: Reading

    /// The results now, as an immutable value that stays valid while the controller changes; while the
    /// controller is paused (see ``pause()``), the results as they were when it paused.
    ///
    /// - Complexity: O(1); no entity is copied.
    @inlinable public var snapshot: FetchedResultsSnapshot<Entity> {
        _state.withLock { $0.visibleSnapshot }
    }

    /// Where the controller is in its fetch cycle.
    @inlinable public var state: FetchState {
        _state.withLock { $0.fetchCycle.fetchState }
    }

    /// Counters of what the controller ignored or survived.
    @inlinable public var statistics: ControllerStatistics {
        _state.withLock { $0.statistics }
    }

    /// All entities in display order. See ``FetchedResultsSnapshot/fetchedObjects``.
    @inlinable public var fetchedObjects: FetchedObjects<Entity> { snapshot.fetchedObjects }

    /// The sections in order. See ``FetchedResultsSnapshot/sections``.
    @inlinable public var sections: FetchedResultsSections<Entity> { snapshot.sections }

    /// The entity at an index path. See ``FetchedResultsSnapshot/object(at:)``.
    ///
    /// - Complexity: O(log *n*).
    @inlinable public func object(at indexPath: IndexPath) -> Entity { snapshot.object(at: indexPath) }

    /// The index path of the entity with the same id, or `nil`. See ``FetchedResultsSnapshot/indexPath(for:)``.
    ///
    /// - Complexity: O(log *n*).
    @inlinable public func indexPath(for entity: Entity) -> IndexPath? { snapshot.indexPath(for: entity) }

    /// The index path of the entity with this id, or `nil`. See ``FetchedResultsSnapshot/indexPath(forID:)``.
    ///
    /// - Complexity: O(log *n*).
    @inlinable public func indexPath(forID id: Entity.ID) -> IndexPath? { snapshot.indexPath(forID: id) }

    /// The shown version of the entity with this id, or `nil`. See ``FetchedResultsSnapshot/object(withID:)``.
    ///
    /// - Complexity: O(log₁₆ *n*).
    @inlinable public func object(withID id: Entity.ID) -> Entity? { snapshot.object(withID: id) }

    // MARK: Changing

    /// Fetches everything with the definition's request: the first fetch, or a refetch.
    ///
    /// A refetch reports the difference from what was shown as one change set, with moves; entities
    /// equal to the ones shown are not reported as updated. Events that arrive while the request runs
    /// are applied to what is shown and replayed onto the result. If the request throws, what is
    /// shown stays, ``state`` becomes ``FetchState/failed(_:)`` and the error is rethrown.
    ///
    /// If another fetch starts before this one ends (a concurrent call, or the refetch that an
    /// ``EntityEvent/invalidated`` event starts, also during the first fetch, and also when the event is
    /// still waiting behind a batch another thread delivers), this one's result is
    /// dropped and it waits for the newest fetch to settle, so that what it leaves behind is shown
    /// results or a failure, never a fetch that nothing finished:
    ///
    /// - once the newest fetch has shown its results, it returns an empty change set (the newest
    ///   fetch's change set reaches the observers); a fetch that supersedes the newest one in turn
    ///   prolongs the wait;
    /// - if the newest fetch fails, it throws that fetch's error, whatever its own request gave, so
    ///   that the error agrees with ``state``;
    /// - a ``reset()`` that supersedes it, or that comes while it waits, ends the wait: it returns an
    ///   empty change set, and the controller shows nothing;
    /// - if the calling task is cancelled while it waits, it throws `CancellationError` at once; the
    ///   newest fetch goes on.
    ///
    /// ```swift
    /// try await controller.performFetch()      // even if the source invalidated during the request
    /// assert(controller.state.isLoaded)         // unless a reset came meanwhile
    /// ```
    ///
    /// A source that invalidates again before each refetch completes keeps the controller from showing
    /// anything, and this call waiting: cancel its task to bound the wait.
    ///
    /// With a paginated definition, the first fetch loads the first page. A refetch reloads as many
    /// pages as are shown, in order from the first cursor, stopping at a page without a cursor onward,
    /// and reports the whole difference as one change set; pages in flight when it starts are dropped.
    ///
    /// - Returns: The change set the fetch caused; an empty one when a newer fetch or a reset superseded it.
    /// - Throws: The request's error; when a newer fetch superseded this one, that fetch's error;
    ///   `CancellationError` when the calling task is cancelled while it waits for a newer fetch.
    /// - Complexity: O(*n*) expected for *n* entities when the first sort key is a number or a date
    ///   (a radix sort of it, and hash tables of ids), plus O(*k* log *k*) comparisons for each run of
    ///   *k* entities that the first key leaves tied (every section, with no number or date key), and
    ///   O(*m* log *m*) for the *m* runs of entities that kept their order in a refetch; plus the request.
    @discardableResult
    @inlinable public func performFetch() async throws -> ChangeSet<Entity> {
        let (generation, plan, showsNothing) = _state.withLock { state in
            let (generation, isLive) = state.fetchCycle.start()
            state.paging.fetchStarted()
            return (generation, isLive ? state.paging.reloadPlan : (1, 0), !isLive)
        }
        let changes: ChangeSet<Entity>?
        if showsNothing, let cache = definition._cache {
            changes = try await fetch(generation: generation, startingFrom: cache)
        } else {
            changes = try await fetch(generation: generation, plan: plan)
        }
        if let changes { return changes }
        try await waitForNewestFetch(superseding: generation)
        return ChangeSet()
    }

    /// Requests what a fetch shows, shows it, and saves it to the definition's cache.
    ///
    /// - Parameter fallback: The saved results to show if the request fails; awaited before a save, so
    ///   that a damaged cache is reported before the save replaces it.
    /// - Returns: The change set, or `nil` when a newer fetch or a reset superseded this one, whether its
    ///   request succeeded or failed.
    /// - Throws: The request's error, when this fetch is still the newest.
    @inlinable func fetch(
        generation: UInt64, plan: (forward: Int, backward: Int), fallback: Task<_CachedChain<Entity>?, Never>? = nil
    ) async throws -> ChangeSet<Entity>? {
        let chain: _PageChain<Entity>
        do {
            chain = try await definition.loadChain(plan, retrying: requestRetried)
        } catch {
            if let cached = await fallback?.value,
                let changes = show(
                    cached.chain, from: .cache(savedAt: cached.savedAt), generation: generation, failure: error)
            {
                return changes
            }
            guard fetchFailed(error, generation: generation) else { return nil }
            throw error
        }
        _ = await fallback?.value
        guard let changes = show(chain, from: .request, generation: generation) else { return nil }
        await saveToCache()
        return changes
    }

    /// Shows the results of a fetch, unless a newer fetch or a reset superseded it.
    ///
    /// - Parameters:
    ///   - origin: Where the results come from.
    ///   - refreshing: Whether a request follows (saved results shown first): the fetch stays in flight.
    ///   - failure: The request's error, when saved results are shown because it failed.
    /// - Returns: The change set, or `nil` when superseded.
    @inlinable func show(
        _ chain: _PageChain<Entity>, from origin: ResultsOrigin, generation: UInt64, refreshing: Bool = false,
        failure: (any Error)? = nil
    ) -> ChangeSet<Entity>? {
        let fetched = chain.folded(isIncluded: definition.isIncluded)
        return commit { state, then -> ChangeSet<Entity>? in
            // A source may have published `.invalidated` during the request while another thread was draining the
            // inbox, which has yet to apply it: the result predates it, and is dropped, as the fetch cycle drops a
            // first fetch's when the invalidation comes during it; applying the invalidation starts the refetch
            // that takes its place, which this fetch's caller waits for.
            let action = state.fetchCycle.resultArrived(
                generation: generation, from: origin, refreshing: refreshing,
                invalidationWaiting: !refreshing && state.inbox.holdsInvalidation)
            guard case .show(let events, let superseded) = action else {
                then.delivers = false
                return nil
            }
            // Freed after the lock is released.
            then.retired = state.core.storage
            let result = state.core.replaceAll(with: fetched.entities, thenReplaying: events)
            let duplicateIDs = fetched.duplicateIDs + result.duplicateIDs
            state.paging.fetched(chain)
            state.statistics.duplicateFetchedIDs += duplicateIDs.count
            if failure != nil { state.statistics.failedFetches += 1 }
            // The association waiters read again; the superseded fetches return, after the delivery.
            then.resume(state.reconcileAssociations() + superseded)
            state.enqueue(result.changes, .rebuild)
            if let failure { then.report(.fetchFailed(failure)) }
            if !duplicateIDs.isEmpty { then.report(.duplicateIDsInFetchResult(duplicateIDs)) }
            return result.changes
        }
    }

    /// Records a failed fetch, unless a newer fetch or a reset superseded it: what is shown stays, and the
    /// fetches it superseded throw its error.
    ///
    /// - Returns: Whether the failure was recorded: `false` when superseded.
    @inlinable func fetchFailed(_ error: any Error, generation: UInt64) -> Bool {
        commit { state, then in
            then.delivers = false
            guard case .fail(let superseded) = state.fetchCycle.failed(generation: generation, error) else {
                return false
            }
            then.resume(superseded, throwing: error)
            state.statistics.failedFetches += 1
            then.report(.fetchFailed(error))
            return true
        }
    }

    /// Applies a batch of events synchronously and atomically.
    ///
    /// Events follow the rules of ``EntityEvent``. Events before the first ``performFetch()`` or after
    /// ``reset()`` are ignored (counted in ``statistics`` and reported as
    /// ``ControllerDiagnostic/eventsIgnored(count:)``). ``EntityEvent/invalidated`` starts a refetch in
    /// a new task, whose change set observers receive when it completes.
    ///
    /// ```swift
    /// let changes = controller.apply([.updated(post), .deleted(oldID)])
    /// ```
    ///
    /// - Returns: The change set of the batch, also delivered to the observers.
    /// - Complexity: O(*k* log *n*) for *k* events and *n* entities, plus one array insertion or removal
    ///   per entity that changes place.
    @discardableResult
    @inlinable public func apply(_ events: [EntityEvent<Entity>]) -> ChangeSet<Entity> {
        guard !events.isEmpty else { return ChangeSet() }
        return apply(events) { $0.apply(events) }
    }

    /// Applies one event. See ``apply(_:)-([EntityEvent<Entity>])``.
    ///
    /// - Complexity: O(log *n*), plus one array insertion or removal if the entity changes place.
    @discardableResult
    @inlinable public func apply(_ event: EntityEvent<Entity>) -> ChangeSet<Entity> {
        apply(CollectionOfOne(event)) { $0.apply(event) }
    }

    /// Applies `events` with `run` under the lock, if the controller is live, then delivers: the delivery this
    /// thread starts, if it is the one to deliver, is taken under the same lock as the change.
    ///
    /// The path of every event: a controller that does not coalesce takes ``commit(_:)``'s steps, in its
    /// order, without its ``_Commit``, whose fields the compiler reached through value witnesses here (some
    /// 650 instructions, 7 % of an event). Events that the fetch cycle does not apply (nothing is shown: they are
    /// kept for the fetch in flight, start a refetch, or are ignored) take its action after the lock; a coalescing
    /// controller goes through `commit`.
    @inlinable func apply(
        _ events: some Collection<EntityEvent<Entity>>,
        running run: (inout _ResultsCore<Entity>) -> (changes: ChangeSet<Entity>, invalidated: Bool)
    ) -> ChangeSet<Entity> {
        // A tuple, not an optional one: unwrapping an optional copied the change set (some 600 instructions).
        // `action` is nil while coalescing.
        let (action, changes, invalidated, waiters, first) = _state.withLock {
            state -> (
                _FetchCycle<Entity>.EventsAction?, ChangeSet<Entity>, Bool, [AssociationWaiter],
                _ControllerState<Entity>.Pending?
            ) in
            guard !state.isCoalescing else { return (nil, ChangeSet(), false, [], nil) }
            let action = state.fetchCycle.receive(events)
            guard action == .apply else { return (action, ChangeSet(), false, [], nil) }
            let result = run(&state.core)
            let waiters = state.invalidateAssociations(touchedBy: events)
            state.enqueue(result.changes)
            return (.apply, result.changes, result.invalidated, waiters, state.engine.startDelivering())
        }
        switch action {
        case .apply:
            if invalidated { refetchInBackground() }
            if let first { _deliverPending(startingWith: first) }
            waiters.forEach { $0.resume() }
            return changes
        case nil:
            return commitApplying(events, running: run)
        case .keep?:
            return changes
        case .refetch?:
            refetchInBackground()
            return changes
        case .ignore?:
            eventsIgnored(events.count)
            return changes
        }
    }

    /// Applies `events` through ``commit(_:)``, while coalescing.
    @inlinable func commitApplying(
        _ events: some Collection<EntityEvent<Entity>>,
        running run: (inout _ResultsCore<Entity>) -> (changes: ChangeSet<Entity>, invalidated: Bool)
    ) -> ChangeSet<Entity> {
        commit { state, then in
            switch state.fetchCycle.receive(events) {
            case .apply:
                let result = run(&state.core)
                then.resume(state.invalidateAssociations(touchedBy: events))
                then.refetches = result.invalidated
                state.enqueue(result.changes)
                return result.changes
            case .keep:
                then.delivers = false
            case .refetch:
                // The first fetch's result may predate the invalidation: the fetch cycle dropped it, under the
                // lock, so that it is never shown; the refetch takes its place, and its caller waits for it.
                then.delivers = false
                then.refetches = true
            case .ignore:
                then.delivers = false
                state.statistics.ignoredEvents += events.count
                then.report(.eventsIgnored(count: events.count))
            }
            return ChangeSet()
        }
    }

    /// Counts and reports events that came while nothing was shown and no fetch was in flight.
    @inlinable func eventsIgnored(_ count: Int) {
        commit { state, then in
            state.statistics.ignoredEvents += count
            then.delivers = false
            then.report(.eventsIgnored(count: count))
        }
    }

    /// Orders the entities by other sort descriptors and reports the reordering as moves.
    ///
    /// Entities keep their insertion order for ties.
    ///
    /// - Complexity: O(*n* log *n*).
    @discardableResult
    @inlinable public func resort(using sortDescriptors: [SortDescriptor<Entity>]) -> ChangeSet<Entity> {
        resort(by: _EntityOrdering.rule(of: sortDescriptors))
    }

    /// Orders the entities by another sort comparator and reports the reordering as moves.
    ///
    /// - Complexity: O(*n* log *n*).
    @discardableResult
    @inlinable public func resort<Comparator: SortComparator & Sendable>(using sortComparator: Comparator) -> ChangeSet<
        Entity
    >
    where Comparator.Compared == Entity {
        resort(by: _SortRule(compare: { sortComparator.compare($0, $1) }))
    }

    @inlinable func resort(by rule: _SortRule<Entity>) -> ChangeSet<Entity> {
        commit { state, _ in
            let changes = state.core.resort(by: rule)
            state.enqueue(changes, .rebuild)
            return changes
        }
    }

    /// Empties the controller, reporting every item and section as deleted, and stops live updates
    /// until the next ``performFetch()``. A fetch in flight is abandoned: its ``performFetch()``, and the
    /// calls that a newer fetch superseded and that wait for it, return an empty change set.
    ///
    /// A paused controller resumes: the change set returned and delivered then deletes everything the
    /// frozen snapshot showed.
    ///
    /// - Complexity: O(*n*).
    @discardableResult
    @inlinable public func reset() -> ChangeSet<Entity> {
        commit { state, then in
            then.resume(state.fetchCycle.reset())
            state.paging.forget()
            let changes = state.core.removeAll()
            state.enqueue(changes, .rebuild)
            return state.paused == nil ? changes : state.resume()
        }
    }

    @inlinable func refetchInBackground() {
        Task { [weak self] in
            _ = try? await self?.performFetch()
        }
    }

    deinit {
        let (remains, updateStreams, followers) = _state.withLock { state in
            (state.engine.close(), Array(state.updates.subscribers.values), state.associations.followers)
        }
        // Live associations outlive their controllers: they forget this one and the keys it held.
        for follower in followers { follower.detach(ObjectIdentifier(self)) }
        // Frees what no one will deliver now (a change set queued by a pause, say, with no delivery after it),
        // and ends every `changes` sequence, so that `for await` loops over them finish.
        remains.finish()
        // Update streams end after what they queued: a consumer reads up to the controller's last version.
        for stream in updateStreams {
            stream.end()
        }
    }

    /// Counts and reports a request that failed and is tried again.
    @inlinable func requestRetried(_ error: any Error, attempt: Int) {
        count(\.retriedRequests, reporting: .requestRetried(error, attempt: attempt))
    }

    @inlinable func report(_ diagnostic: ControllerDiagnostic<Entity>) {
        _diagnostics?(diagnostic)
    }
}
