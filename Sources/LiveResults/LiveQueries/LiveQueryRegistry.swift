import Foundation

/// One live controller per distinct query over a ``QueryableSource``, shared by everyone who asks that query,
/// kept a while after the last of them left, and fed by one observation of the source that routes each event
/// only to the queries it can change.
///
/// ```swift
/// let registry = LiveQueryRegistry(source: todos, indexing: ["project", "priority"])
/// let results = try await registry.results(for: LiveQuery<Todo>(filters: [.equal("project", "home")]))
/// let top = results.window(.first(50))       // shared with every holder of this query and range
/// ```
///
/// Holding a ``LiveQueryResults`` keeps its query live; when the last holder releases it, the query stays for
/// ``gracePeriod`` — a client that reconnects meanwhile finds its controller, its windows and their versions,
/// and resumes with one catch-up — and is then released: its controller stops observing and its windows close.
/// At most ``maximumQueries`` are live: asking for another releases the query idle longest, or, when every
/// query is held, throws ``LiveQueryRegistryError/full(maximum:)``.
public final class LiveQueryRegistry<Source: QueryableSource>: Sendable {
    /// The entities of the source.
    public typealias Entity = Source.Entity

    /// Where the queries' results come from.
    public let source: Source
    /// The most queries live at once, held or idle.
    public let maximumQueries: Int
    /// How long a query nobody holds stays live.
    public let gracePeriod: Duration

    private struct Entry: Sendable {
        let serial: Int
        let controller: FetchedResultsController<Entity>
        let routeID: Int
        let fetch: Task<Void, any Error>
        var holders = 0
        /// Counts the releases to zero holders: a grace period that ended finds whether it is still the last.
        var idleGeneration = 0
        var idleSince: ContinuousClock.Instant?
        /// The windows holders asked for, shared by range.
        var windows: [WindowRange: LiveWindow<Entity>] = [:]
    }

    private struct State: Sendable {
        var entries: [String: Entry] = [:]
        var nextSerial = 0

        /// Removes the entry idle longest, if any entry is idle.
        mutating func removeIdleLongest() -> Entry? {
            guard
                let idle = entries.filter({ $0.value.holders == 0 })
                    .min(by: { $0.value.idleSince! < $1.value.idleSince! })
            else { return nil }
            return entries.removeValue(forKey: idle.key)
        }
    }

    /// The most windows of distinct ranges a query shares; beyond them, each window asked for is its holder's own.
    static var maximumSharedWindows: Int { 32 }

    private let router: _QueryRouter<Entity>
    private let paths: _LiveQueryPaths<Entity>
    private let state = _Lock(State())

    /// A registry of queries over `source`.
    ///
    /// - Parameters:
    ///   - source: Fetches each query's results and delivers the events of all of them.
    ///   - indexing: The columns whose `eq` and `in` filters route events by value; all the entity's columns by
    ///     default. Index the columns clients filter on.
    ///   - maximumQueries: The most queries live at once; 1,000 by default.
    ///   - gracePeriod: How long a query nobody holds stays live; 30 seconds by default.
    /// - Complexity: O(1).
    @inlinable public convenience init(
        source: Source, indexing: [String]? = nil, maximumQueries: Int = 1_000, gracePeriod: Duration = .seconds(30)
    ) {
        // Inlined into the caller, where `Source` is known: the paths formed here are specialized for it.
        self.init(
            source: source, indexing: indexing, maximumQueries: maximumQueries, gracePeriod: gracePeriod,
            paths: _LiveQueryPaths())
    }

    @usableFromInline init(
        source: Source, indexing: [String]?, maximumQueries: Int, gracePeriod: Duration,
        paths: _LiveQueryPaths<Entity>
    ) {
        self.source = source
        self.maximumQueries = max(1, maximumQueries)
        self.gracePeriod = gracePeriod
        self.paths = paths
        self.router = _QueryRouter(
            source: source, indexing: indexing ?? Entity.queryColumns.map(\.name), upstreamSubscriber: paths.upstream)
    }

    deinit {
        for entry in state.withLock({ Array($0.entries.values) }) { close(entry) }
    }

    /// The queries live now, held or in their grace period.
    ///
    /// - Complexity: O(1).
    public var liveQueryCount: Int { state.withLock { $0.entries.count } }

    /// The versions the live queries' controllers and their windows hold for update streams to resume from, and
    /// an estimate of their bytes (see ``FetchedResultsController/heldVersions``): for metrics, read now and then.
    ///
    /// - Complexity: O(*q* + *W* + *v*) for *q* live queries, *W* windows and *v* versions held; each controller's
    ///   locks are taken after the registry's is released.
    public var heldVersions: HeldVersions {
        let controllers = state.withLock { $0.entries.values.map(\.controller) }
        return controllers.reduce(HeldVersions()) { $0 + $1.heldVersions }
    }

    /// The live results of `query`, fetched: the controller the registry keeps for it, made and fetched by the
    /// first who asks.
    ///
    /// Hold the returned value as long as the results are used; releasing it lets the query go after
    /// ``gracePeriod``.
    ///
    /// It returns once the results are shown: when an invalidation supersedes the first fetch, it returns once
    /// the refetch has shown its results (see ``FetchedResultsController/performFetch()``).
    ///
    /// - Throws: ``LiveQueryRegistryError/full(maximum:)`` when ``maximumQueries`` are held; the fetch's error
    ///   when the fetch fails (the next request fetches again).
    /// - Complexity: O(1) for a live query; otherwise the fetch.
    public func results(for query: LiveQuery<Entity>) async throws -> LiveQueryResults<Entity> {
        try await heldResults(for: query).results
    }

    /// The live results of `query`, showing every change committed to the source before the call: read-your-writes.
    ///
    /// A query fetched by this call shows them already (its fetch started after the call). A query already live is
    /// synchronized (``LiveQueryResults/synchronize()``): it returns once the source has delivered every change
    /// committed before the call and the controller has applied them.
    ///
    /// ```swift
    /// try await database.insert(todo)
    /// let results = try await registry.currentResults(for: query)   // holds `todo` if the query selects it
    /// ```
    ///
    /// - Throws: As ``results(for:)``; ``LiveQuerySynchronizationError`` when the source's
    ///   ``QueryableSource/synchronize()`` fails (its timeout passed): the results are not returned then.
    /// - Complexity: As ``results(for:)``, plus the source's ``QueryableSource/synchronize()`` for a live query.
    public func currentResults(for query: LiveQuery<Entity>) async throws -> LiveQueryResults<Entity> {
        let (results, fetched) = try await heldResults(for: query)
        guard !fetched else { return results }
        do {
            try await results.synchronize()
        } catch {
            throw LiveQuerySynchronizationError(underlying: error)
        }
        return results
    }

    /// The results of `query`, and whether this call made its entry (and so started its fetch).
    private func heldResults(for query: LiveQuery<Entity>) async throws -> (
        results: LiveQueryResults<Entity>, fetched: Bool
    ) {
        let (entry, made) = try hold(query)
        let (controller, paths, source) = (entry.controller, paths, source)
        let results = LiveQueryResults(
            query: query, controller: controller, synchronizeSource: { try await source.synchronize() },
            makeWindow: { [weak self] range in
                self?.window(range, key: query.key, serial: entry.serial, controller: controller)
                    ?? paths.window(controller, range)
            },
            release: { [weak self] in self?.release(query.key, serial: entry.serial) })
        do {
            try await entry.fetch.value
        } catch {
            discard(query.key, serial: entry.serial)
            throw error
        }
        return (results, made)
    }

    /// Releases the query idle longest, if a query is idle: room for something else that counts toward the
    /// same limit as the registry's queries (a route's embedded rows, kept live beside them).
    ///
    /// - Returns: Whether a query was released.
    /// - Complexity: O(*q*) for the *q* live queries.
    @discardableResult public func releaseIdleLongest() -> Bool {
        let released = state.withLock { $0.removeIdleLongest() }
        released.map(close)
        return released != nil
    }

    // MARK: Entries

    /// The entry of `query`, made if needed, with one more holder; whether it was made.
    private func hold(_ query: LiveQuery<Entity>) throws -> (entry: Entry, made: Bool) {
        var evicted: Entry?
        defer { evicted.map(close) }
        return try state.withLock { state in
            if var entry = state.entries[query.key] {
                entry.holders += 1
                entry.idleSince = nil
                state.entries[query.key] = entry
                return (entry, false)
            }
            if state.entries.count >= maximumQueries {
                guard let idle = state.removeIdleLongest() else {
                    throw LiveQueryRegistryError.full(maximum: maximumQueries)
                }
                evicted = idle
            }
            defer { state.nextSerial += 1 }
            var entry = makeEntry(for: query, serial: state.nextSerial)
            entry.holders = 1
            state.entries[query.key] = entry
            return (entry, true)
        }
    }

    /// A controller for `query`, routed, with its first fetch started.
    private func makeEntry(for query: LiveQuery<Entity>, serial: Int) -> Entry {
        let routeID = router.makeRouteID()
        var definition = source.fetchDefinition(for: query)
        let request = definition.request
        definition.request = { [router] in
            router.fetchStarted(routeID)
            do {
                let entities = try await request()
                router.fetchEnded(routeID, entities: entities)
                return entities
            } catch {
                router.fetchEnded(routeID, entities: nil)
                throw error
            }
        }
        definition.isIncluded = paths.isIncluded(query)
        let controller = paths.controller(definition, query)
        router.add(routeID, subscriber: paths.subscriber(controller), key: router.indexKey(of: query))
        return Entry(
            serial: serial, controller: controller, routeID: routeID,
            // A fetch that an invalidation supersedes returns once the refetch has shown its results. The only
            // reset, `close(_:)`, comes when no request waits for this fetch.
            fetch: Task { _ = try await controller.performFetch() })
    }

    /// One holder of entry `serial` of `key` left; the last starts the grace period.
    private func release(_ key: String, serial: Int) {
        let generation = state.withLock { state -> Int? in
            guard var entry = state.entries[key], entry.serial == serial else { return nil }
            entry.holders -= 1
            guard entry.holders == 0 else {
                state.entries[key] = entry
                return nil
            }
            entry.idleGeneration += 1
            entry.idleSince = .now
            state.entries[key] = entry
            return entry.idleGeneration
        }
        guard let generation else { return }
        let gracePeriod = self.gracePeriod
        Task { [weak self] in
            try? await Task.sleep(for: gracePeriod)
            self?.expire(key, serial: serial, generation: generation)
        }
    }

    /// Releases entry `serial` of `key` if nobody held it since its grace period began.
    private func expire(_ key: String, serial: Int, generation: Int) {
        let expired = state.withLock { state -> Entry? in
            guard let entry = state.entries[key], entry.serial == serial, entry.holders == 0,
                entry.idleGeneration == generation
            else { return nil }
            return state.entries.removeValue(forKey: key)
        }
        expired.map(close)
    }

    /// Removes entry `serial` of `key`, whose fetch failed: the next request makes a new one.
    private func discard(_ key: String, serial: Int) {
        let discarded = state.withLock { state -> Entry? in
            guard state.entries[key]?.serial == serial else { return nil }
            return state.entries.removeValue(forKey: key)
        }
        discarded.map(close)
    }

    private func close(_ entry: Entry) {
        router.remove(entry.routeID)
        entry.fetch.cancel()
        for window in entry.windows.values { window.close() }
        entry.controller.reset()
    }

    /// The window at `range` of entry `serial` of `key`: the one its holders share, or a new one of the
    /// caller's own when the entry shares its most windows already.
    fileprivate func window(
        _ range: WindowRange, key: String, serial: Int, controller: FetchedResultsController<Entity>
    )
        -> LiveWindow<Entity>
    {
        state.withLock { state in
            guard var entry = state.entries[key], entry.serial == serial else { return paths.window(controller, range) }
            if let window = entry.windows[range] { return window }
            let window = paths.window(controller, range)
            if entry.windows.count < Self.maximumSharedWindows {
                entry.windows[range] = window
                state.entries[key] = entry
            }
            return window
        }
    }
}

/// Why a ``LiveQueryRegistry`` refused a query.
public enum LiveQueryRegistryError: Error, Hashable, Sendable {
    /// The registry holds its most queries, every one of them in use: try again later.
    case full(maximum: Int)
}

/// The live results of one query of a ``LiveQueryRegistry``, held: the query stays live while this value does.
public final class LiveQueryResults<Entity: QueryableEntity>: Sendable {
    /// The query.
    public let query: LiveQuery<Entity>
    /// Its controller, shared by every holder of the query: read it and observe it, never reset or refetch it.
    public let controller: FetchedResultsController<Entity>
    private let release: @Sendable () -> Void
    private let makeWindow: @Sendable (WindowRange) -> LiveWindow<Entity>
    private let synchronizeSource: @Sendable () async throws -> Void

    fileprivate init(
        query: LiveQuery<Entity>, controller: FetchedResultsController<Entity>,
        synchronizeSource: @escaping @Sendable () async throws -> Void,
        makeWindow: @escaping @Sendable (WindowRange) -> LiveWindow<Entity>, release: @escaping @Sendable () -> Void
    ) {
        self.query = query
        self.controller = controller
        self.synchronizeSource = synchronizeSource
        self.makeWindow = makeWindow
        self.release = release
    }

    deinit { release() }

    /// Returns once ``controller`` shows every change committed to the registry's source before the call: the
    /// source has delivered them (``QueryableSource/synchronize()``), and the controller has applied what it was
    /// delivered (``FetchedResultsController/waitForDeliveredEvents()``).
    ///
    /// The exceptions are the controller's own: an `EntityEvent.invalidated` among those changes (a reconnection, a
    /// `TRUNCATE`) shows once its refetch has, which this does not wait for.
    ///
    /// - Throws: The source's error from ``QueryableSource/synchronize()`` (its timeout): then nothing is
    ///   guaranteed.
    /// - Complexity: The source's ``QueryableSource/synchronize()``, then until the controller's current batch and
    ///   the one waiting are applied.
    public func synchronize() async throws {
        try await synchronizeSource()
        await controller.waitForDeliveredEvents()
    }

    /// A window of the results at `range`, shared with the other holders that ask for the same range while
    /// the query is live (so a reconnecting client finds its window's versions), up to 32 ranges per query;
    /// beyond them a window of the caller's own, closed when released. Don't move or close the window: release it.
    ///
    /// - Complexity: O(1) for a shared window; O(log *W*) to make one over *W* windows.
    public func window(_ range: WindowRange) -> LiveWindow<Entity> { makeWindow(range) }
}
