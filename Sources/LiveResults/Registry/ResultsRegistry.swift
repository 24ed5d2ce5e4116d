/// Shares one ``FetchedResultsController`` per ``QueryKey`` among every consumer that asks for that
/// key while any of them holds it, and refetches them by key prefix.
///
/// The registry holds its controllers weakly: a controller lives as long as a consumer holds it, and
/// the next consumer to ask after that gets a new one from its `make` closure. With a `keepAlive`, the
/// registry also holds each controller strongly until `keepAlive` has passed since it was last handed
/// out, so a screen that goes and comes back within that time finds its results still there.
///
/// ```swift
/// let registry = ResultsRegistry(keepAlive: .seconds(30))
/// let posts = registry.controller(for: ["posts", userID]) {
///     FetchedResultsController(definition: definition, sortDescriptors: [SortDescriptor(\Post.date)])
/// }
/// try await posts.performFetch()
/// // After a post is created, refetch every live list of posts and wait for them:
/// await registry.invalidate(prefix: ["posts"])
/// ```
///
/// All its methods can be called from any thread or task.
public final class ResultsRegistry: Sendable {
    /// How long the registry keeps a controller alive after it last handed it out; zero (or less) for
    /// not at all.
    public let keepAlive: Duration
    /// The slots by key. Never locked while a slot's lock is wanted (see ``_RegistrySlot``).
    private let slots = _Lock<[QueryKey: _RegistrySlot]>([:])

    /// Creates an empty registry.
    ///
    /// - Parameter keepAlive: How long to keep each controller alive after it was last handed out by
    ///   ``controller(for:make:)``, even when no consumer holds it any more. Each hand-out pushes the
    ///   deadline back; once it passes, the controller lives only as long as consumers hold it. The
    ///   default, zero, keeps nothing alive: a controller goes with its last consumer.
    public init(keepAlive: Duration = .zero) {
        self.keepAlive = keepAlive
    }

    /// The controller for `key`: the live one if a consumer (or the keep-alive) still holds it, else a
    /// new one from `make`, which the registry then hands out for `key` while it lives.
    ///
    /// Concurrent callers asking for the same key get the same controller, and `make` runs once: they
    /// wait for it. The controller is returned as `make` built it; fetching it is the caller's job
    /// (with ``FetchedResultsController/performFetch()`` or an ``ObservableResults``).
    ///
    /// ```swift
    /// let shared = registry.controller(for: ["posts", userID]) {
    ///     FetchedResultsController(definition: definition, sortDescriptors: [SortDescriptor(\Post.date)])
    /// }
    /// ```
    ///
    /// - Precondition: If a controller is live for `key`, its entity type is `Entity`. Using one key
    ///   for two entity types is a programmer error that stops the program with a message naming the
    ///   key and both types.
    /// - Parameters:
    ///   - key: The key of the query.
    ///   - make: Builds the controller when none is live for `key`. It runs while the registry holds
    ///     that key's lock, so it must not ask the registry for a controller itself.
    /// - Returns: The one live controller for `key`.
    /// - Complexity: O(*k*) expected to hash and find the *k* characters of `key`, plus `make` when it
    ///   runs.
    public func controller<Entity: FetchableEntity>(
        for key: QueryKey, make: () -> FetchedResultsController<Entity>
    ) -> FetchedResultsController<Entity> {
        let keepAlive = keepAlive
        while true {
            let slot = slots.withLock { slots in
                if let slot = slots[key] { return slot }
                let slot = _RegistrySlot(key: key)
                slots[key] = slot
                return slot
            }
            let (found, startsReleaseTask) = slot.state.withLock {
                state -> (FetchedResultsController<Entity>?, Bool) in
                // A slot pruned since the table gave it out: ask the table again.
                guard !state.isRemoved else { return (nil, false) }
                let controller: FetchedResultsController<Entity>
                if let live = state.controller {
                    guard let typed = live as? FetchedResultsController<Entity> else {
                        preconditionFailure(
                            "ResultsRegistry: the key \(key) holds a \(type(of: live)), not a "
                                + "\(FetchedResultsController<Entity>.self); use one key per entity type")
                    }
                    controller = typed
                } else {
                    controller = make()
                    state.controller = controller
                }
                guard keepAlive > .zero else { return (controller, false) }
                state.retained = controller
                state.releaseDeadline = .now + keepAlive
                defer { state.hasReleaseTask = true }
                return (controller, !state.hasReleaseTask)
            }
            guard let found else { continue }
            if startsReleaseTask { startReleaseTask(for: slot) }
            return found
        }
    }

    /// The controller for `key`, as ``controller(for:make:)`` gives it, once it has fetched: the first
    /// caller starts its first fetch, and every caller meanwhile waits for that same fetch.
    ///
    /// However many tasks ask at once, the key gets one controller and one request (TanStack Query's
    /// deduplicated first fetch). A controller that shows results returns at once.
    ///
    /// ```swift
    /// let posts = try await registry.fetchedController(for: ["posts", userID]) {
    ///     FetchedResultsController(definition: definition, sortDescriptors: [SortDescriptor(\Post.date)])
    /// }
    /// ```
    ///
    /// - Parameters:
    ///   - key: The key of the query.
    ///   - make: Builds the controller when none is live for `key` (see ``controller(for:make:)``).
    /// - Returns: The one live controller for `key`, fetched.
    /// - Throws: The first fetch's error, to every caller that waited for it; the next call fetches again.
    ///   Cancelling a caller does not cancel the fetch the others share.
    /// - Complexity: As ``controller(for:make:)``, plus the first fetch when it runs.
    public func fetchedController<Entity: FetchableEntity>(
        for key: QueryKey, make: () -> FetchedResultsController<Entity>
    ) async throws -> FetchedResultsController<Entity> {
        let controller = controller(for: key, make: make)
        try await controller._fetchIfNeeded()
        return controller
    }

    /// Refetches every live controller whose key starts with `prefix`, concurrently, and returns when
    /// they are all done.
    ///
    /// Only controllers that have fetched before are refetched: one whose ``FetchedResultsController/state``
    /// is ``FetchState/idle`` (never fetched, or reset) is left for its consumer to fetch first. A
    /// failure is not thrown here: each controller reports its own through its state and diagnostics.
    /// A prefix under which no controller is live returns at once.
    ///
    /// ```swift
    /// await registry.invalidate(prefix: ["posts"])   // ["posts", "1"], ["posts", "2"], …
    /// await registry.invalidate(prefix: [])          // everything
    /// ```
    ///
    /// - Parameter prefix: The prefix of the keys to refetch (see ``QueryKey/hasPrefix(_:)``).
    /// - Complexity: O(*n*) for the *n* keys of the registry, plus the fetches, which run concurrently.
    public func invalidate(prefix: QueryKey) async {
        await invalidate(prefixes: [prefix])
    }

    /// Refetches, once each, the live controllers whose key starts with any of `prefixes`.
    func invalidate(prefixes: [QueryKey]) async {
        let controllers = live().filter { entry in prefixes.contains { entry.key.hasPrefix($0) } }.map(\.controller)
        guard !controllers.isEmpty else { return }
        await withTaskGroup(of: Void.self) { group in
            for controller in controllers {
                group.addTask { await controller._refetchIfFetched() }
            }
        }
    }

    /// The keys that have a live controller, in lexicographic order of their components (a key comes
    /// before the longer keys it is a prefix of). For diagnostics and tests: a controller can go or come
    /// as soon as this returns.
    ///
    /// - Complexity: O(*n* log *n*) for the *n* keys of the registry.
    public var liveKeys: [QueryKey] {
        live().map(\.key).sorted(by: QueryKey._precedes)
    }

    /// The live controllers with their keys, held strongly; prunes the slots whose controller went.
    private func live() -> [(key: QueryKey, controller: any _RegisteredController)] {
        let all = slots.withLock { Array($0.values) }
        var live: [(key: QueryKey, controller: any _RegisteredController)] = []
        for slot in all {
            if let controller = slot.state.withLock({ $0.controller }) {
                live.append((slot.key, controller))
            } else {
                prune(slot)
            }
        }
        return live
    }

    /// Takes `slot` out of the table if its controller went.
    private func prune(_ slot: _RegistrySlot) {
        slot.state.withLock { state in
            guard !state.isRemoved, state.controller == nil else { return }
            state.isRemoved = true
            // Slot, then table: the one lock order (see `_RegistrySlot`).
            slots.withLock { slots in
                if slots[slot.key] === slot { slots[slot.key] = nil }
            }
        }
    }

    /// Waits for the slot's keep-alive deadline, pushed back as long as the controller is handed out,
    /// then drops the keep-alive reference and prunes the slot if the controller went with it.
    private func startReleaseTask(for slot: _RegistrySlot) {
        Task { [weak self] in
            while true {
                let deadline = slot.state.withLock { $0.releaseDeadline }
                try? await Task.sleep(until: deadline, clock: .continuous)
                if slot.releaseIfDue() { break }
            }
            self?.prune(slot)
        }
    }
}
