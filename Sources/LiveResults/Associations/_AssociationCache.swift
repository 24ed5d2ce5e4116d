import Foundation

/// One association's cached values and requests in flight, as a plain value: the state machine a
/// ``FetchedResultsController`` runs under its lock, and tests drive directly.
///
/// Values are cached per key, so entities that share a key share one value and one request:
/// - `values`: the result of each cached key; `nil` when the request returned nothing for it ("no
///   value", cached so that it is not requested again);
/// - `inFlight`: the keys being requested, each with the entities waiting for it;
/// - `waiting` and `served`: the keys each waiting or served entity had when it started waiting or got
///   its value. An entity is served when all its keys are cached; it then reads its value from them;
/// - `references`: how many served or waiting entities use each key. A key's value is dropped when no
///   entity uses it any more. Waiting entities count too, so that a value that arrived, or was cached,
///   for an entity that still waits for its other keys stays until they arrive;
/// - `servedByKey`: for a live association only, the served entities of each key, so that an event about a key
///   reaches exactly the entities showing its value;
/// - `overrides`: for a live association, the values related events gave keys in flight: they win over
///   the request's result, which may have been read before the event;
/// - `generation`: counts the related source's invalidations; a request started before the last one
///   brings results that are not cached (its waiters request again);
/// - `referenceChanges`: for a live association, the keys that gained or lost their last reference
///   since the follower was last told, so that it tells this controller of exactly the keys it holds.
///
/// Nothing here calls out: requests are returned for the controller to start outside its lock.
@usableFromInline struct _AssociationCache<Entity: FetchableEntity>: Sendable {
    @usableFromInline typealias ID = Entity.ID

    /// A batch request to start, outside the lock.
    @usableFromInline struct Request: Sendable {
        @usableFromInline var association: ObjectIdentifier
        /// Distinct keys, in display order of the entities that need them.
        @usableFromInline var keys: [_AssociationKey]
        @usableFromInline var run: @Sendable ([_AssociationKey]) async throws -> [_AssociationKey: any Sendable]
        /// The cache's ``_AssociationCache/generation`` when the request was planned.
        @usableFromInline var generation: Int

        @usableFromInline
        init(
            association: ObjectIdentifier, keys: [_AssociationKey],
            run: @escaping @Sendable ([_AssociationKey]) async throws -> [_AssociationKey: any Sendable],
            generation: Int = 0
        ) {
            self.association = association
            self.keys = keys
            self.run = run
            self.generation = generation
        }
    }

    /// What a read found.
    @usableFromInline enum Read {
        /// The entity's value is known: one part per key, in its key order; `nil` for a key without result.
        case cached([(any Sendable)?])
        /// The entity waits for a request in flight.
        case pending
        /// The entity has no cached value, and requests pause after a failure.
        case backingOff(lastError: any Error)
        /// The entity is not shown: it has no value.
        case notShown
    }

    /// What a request's arrival or failure settled.
    @usableFromInline struct Settlement {
        /// Entities that got their value; one change set reports them as updated.
        @usableFromInline var served: [ID] = []
        /// Entities that stopped waiting without a value: they are gone, their keys changed, or the
        /// request failed.
        @usableFromInline var released: [ID] = []
        /// Keys that waiting entities still miss, because their values were dropped meanwhile.
        @usableFromInline var followUp: Request?

        @usableFromInline
        init(served: [ID] = [], released: [ID] = [], followUp: Request? = nil) {
            self.served = served
            self.released = released
            self.followUp = followUp
        }
    }

    @usableFromInline let association: any AssociationProtocol<Entity>
    @usableFromInline let erased: _AnyAssociation<Entity>

    @usableFromInline var values: [_AssociationKey: (any Sendable)?] = [:]
    @usableFromInline var inFlight: [_AssociationKey: Set<ID>] = [:]
    @usableFromInline var waiting: [ID: [_AssociationKey]] = [:]
    @usableFromInline var served: [ID: [_AssociationKey]] = [:]
    @usableFromInline var references: [_AssociationKey: Int] = [:]
    @usableFromInline var servedByKey: [_AssociationKey: Set<ID>] = [:]
    @usableFromInline var overrides: [_AssociationKey: (any Sendable)?] = [:]
    @usableFromInline var generation = 0
    @usableFromInline var referenceChanges: [_AssociationKey: Bool] = [:]
    /// Whether the association follows a related source: only then are reference changes recorded.
    @usableFromInline let isLive: Bool
    /// Failed requests since the last success.
    @usableFromInline var consecutiveFailures = 0
    /// Until when reads request nothing, after a failure.
    @usableFromInline var retryAt: ContinuousClock.Instant?
    @usableFromInline var lastError: (any Error)?

    @inlinable init(_ association: any AssociationProtocol<Entity>) {
        self.association = association
        self.erased = association._erased
        self.isLive = association._erased.follower != nil
    }

    @inlinable var id: ObjectIdentifier { ObjectIdentifier(association) }

    /// The window of `size` positions around `index` in display order, among `count` entities; `size`
    /// 0 is everything.
    @inlinable static func window(around index: Int, size: Int, count: Int) -> Range<Int> {
        guard size > 0 else { return 0..<count }
        let start = max(0, min(index - size / 2, count - size))
        return start..<min(count, start + size)
    }

    // MARK: Reading

    /// Reads the value of the entity with this id, and plans one request for the entities of its
    /// window that have neither a cached value nor a request in flight.
    ///
    /// - Returns: What the read found, and the request to start, if any.
    /// - Complexity: O(*w*) for a window of *w* entities, plus O(*s*) for *s* sections to find the
    ///   window; O(1) on average when the value is cached.
    @inlinable mutating func read(
        _ id: ID, in storage: _SectionedStorage<Entity>, windowSize: Int, now: ContinuousClock.Instant
    ) -> (Read, Request?) {
        guard let stored = storage.stored(forID: id) else { return (.notShown, nil) }
        let keys = erased.keys(stored.entity)
        if keys.isEmpty { return (.cached([]), nil) }
        if isServedOrWaiting(id, keys: keys) {
            return served[id] != nil ? (.cached(parts(of: keys)), nil) : (.pending, nil)
        }
        if keys.allSatisfy(values.keys.contains) {
            serve(id, keys: keys)
            return (.cached(parts(of: keys)), nil)
        }
        if let retryAt, now < retryAt, let lastError { return (.backingOff(lastError: lastError), nil) }
        guard let indexPath = storage.indexPath(forID: id) else { return (.notShown, nil) }
        let window = Self.window(around: storage.globalIndex(of: indexPath), size: windowSize, count: storage.count)
        var keysToRequest: [_AssociationKey] = []
        for neighbour in storage.stored(inGlobalRange: window) {
            let neighbourKeys = erased.keys(neighbour.entity)
            let neighbourID = neighbour.entity.id
            guard !neighbourKeys.isEmpty, !isServedOrWaiting(neighbourID, keys: neighbourKeys),
                !neighbourKeys.allSatisfy(values.keys.contains)  // cached: served when read
            else { continue }
            wait(neighbourID, keys: neighbourKeys, requesting: &keysToRequest)
        }
        return (.pending, request(keysToRequest))
    }

    /// Whether the entity has its value or waits for it.
    ///
    /// Events and fetches settle every entity whose keys change (see ``entityChanged(_:in:)``), so a
    /// served or waiting entity has the keys it is read with. Should a value be cached under other keys,
    /// it is dropped here; a wait under other keys ends when its request does.
    @inlinable mutating func isServedOrWaiting(_ id: ID, keys: [_AssociationKey]) -> Bool {
        if let servedKeys = served[id], servedKeys != keys { unserve(id) }
        return served[id] != nil || waiting[id] != nil
    }

    @inlinable func parts(of keys: [_AssociationKey]) -> [(any Sendable)?] {
        keys.map { values[$0] ?? nil }
    }

    @inlinable func request(_ keys: [_AssociationKey]) -> Request? {
        keys.isEmpty ? nil : Request(association: id, keys: keys, run: erased.request, generation: generation)
    }

    // MARK: Arrival

    /// Caches the results of a request, and serves the entities that waited for them and are still
    /// shown with the same keys. An entity that is no longer shown (after a reset) or whose keys changed
    /// is released, and a value that no entity uses any more is dropped: it is never cached under an
    /// entity's new key. A related event's value for a key wins over the result; the results of a request
    /// planned before the related source's last invalidation are not cached, and their waiters request
    /// again.
    ///
    /// - Complexity: O(*r* + *e* log *n*) for *r* keys and *e* waiting entities.
    @inlinable mutating func receive(
        _ results: [_AssociationKey: any Sendable], for request: Request, in storage: _SectionedStorage<Entity>
    ) -> Settlement {
        (consecutiveFailures, retryAt, lastError) = (0, nil, nil)
        var waiters = Set<ID>()
        let isCurrent = request.generation == generation
        for key in request.keys {
            waiters.formUnion(inFlight.removeValue(forKey: key) ?? [])
            let override = overrides.removeValue(forKey: key)
            guard references[key] != nil else { continue }
            if let override {
                values[key] = .some(override)
            } else if isCurrent {
                values[key] = .some(results[key])
            }
        }
        var settlement = Settlement()
        var keysToRequest: [_AssociationKey] = []
        for id in waiters {
            guard let keys = waiting[id] else { continue }
            guard let stored = storage.stored(forID: id), erased.keys(stored.entity) == keys else {
                unwait(id)
                settlement.released.append(id)
                continue
            }
            let missing = keys.filter { !values.keys.contains($0) }
            if missing.isEmpty {
                waiting[id] = nil
                served[id] = keys
                if isLive { index(id, keys: keys) }
                settlement.served.append(id)
            } else {
                // Still waiting for other requests, or for values dropped meanwhile (memory pressure).
                for key in missing {
                    if inFlight[key] == nil { keysToRequest.append(key) }
                    inFlight[key, default: []].insert(id)
                }
            }
        }
        settlement.followUp = self.request(keysToRequest)
        return settlement
    }

    /// Releases the entities that waited for a failed request, and pauses requests by the backoff.
    ///
    /// - Returns: The released entities.
    /// - Complexity: O(*r* + *e*) for *r* keys and *e* waiting entities.
    @inlinable mutating func fail(_ request: Request, error: any Error, now: ContinuousClock.Instant) -> [ID] {
        var waiters = Set<ID>()
        for key in request.keys {
            waiters.formUnion(inFlight.removeValue(forKey: key) ?? [])
            overrides[key] = nil
        }
        let released = waiters.filter { waiting[$0] != nil }
        released.forEach { unwait($0) }
        consecutiveFailures += 1
        retryAt = now + erased.backoff.delay(afterFailures: consecutiveFailures)
        lastError = error
        return Array(released)
    }

    // MARK: Invalidation

    /// Settles an entity that an event changed: if it is gone or its keys changed, it loses its value,
    /// or stops waiting.
    ///
    /// - Returns: Whether the entity stopped waiting: its waiters must read again.
    /// - Complexity: O(1) on average for an entity that is neither served nor waiting, O(*k*) for one
    ///   with *k* keys.
    @inlinable mutating func entityChanged(_ id: ID, in storage: _SectionedStorage<Entity>) -> Bool {
        guard served[id] != nil || waiting[id] != nil else { return false }
        let keys = storage.stored(forID: id).map { erased.keys($0.entity) }
        if let servedKeys = served[id], servedKeys != keys { unserve(id) }
        guard let waitingKeys = waiting[id], waitingKeys != keys else { return false }
        unwait(id)
        return true
    }

    /// Settles every served or waiting entity after a fetch: those that are gone or whose keys changed
    /// lose their value, or stop waiting. The others keep their values.
    ///
    /// - Returns: The entities that stopped waiting.
    /// - Complexity: O(*v* + *e*) for *v* served and *e* waiting entities.
    @inlinable mutating func reconcile(with storage: _SectionedStorage<Entity>) -> [ID] {
        Array(served.keys).forEach { _ = entityChanged($0, in: storage) }
        return Array(waiting.keys).filter { entityChanged($0, in: storage) }
    }

    /// Drops every cached value. Requests in flight go on, and serve the entities waiting for them.
    ///
    /// - Returns: The entities that had a value.
    /// - Complexity: O(*v* + *e*) for *v* served and *e* waiting entities.
    @inlinable mutating func dropValues() -> [ID] {
        let dropped = Array(served.keys)
        let referenced = isLive ? Array(references.keys) : []
        (values, served, references, servedByKey) = ([:], [:], [:], [:])
        for keys in waiting.values {
            for key in Set(keys) { references[key, default: 0] += 1 }
        }
        for key in referenced where references[key] == nil { referenceChanges[key] = false }
        return dropped
    }

    // MARK: Related events

    /// Applies a batch of a live association's related events: an invalidation drops every value and
    /// makes the requests in flight stale; a changed key's cached value is replaced (the entity, or no
    /// value for one deleted), and a key in flight gets an override. A key neither cached nor in flight is
    /// left alone: no entity shows its value, and nothing is requested for it.
    ///
    /// - Returns: The entities that were served a value the batch changed or dropped.
    /// - Complexity: O(*k* + *a*) for *k* changed keys and *a* entities returned; O(*v* + *e*) more for an
    ///   invalidation, for *v* served and *e* waiting entities.
    @inlinable mutating func apply(_ changes: _RelatedChanges) -> Set<ID> {
        var changed = Set<ID>()
        if changes.invalidates {
            generation += 1
            overrides.removeAll()
            changed.formUnion(dropValues())
        }
        for (key, value) in changes.values {
            if values.keys.contains(key) {
                values[key] = .some(value)
                changed.formUnion(servedByKey[key] ?? [])
            } else if inFlight[key] != nil {
                overrides[key] = .some(value)
            }
        }
        return changed
    }

    // MARK: Bookkeeping

    @inlinable mutating func serve(_ id: ID, keys: [_AssociationKey]) {
        served[id] = keys
        for key in Set(keys) { retain(key) }
        if isLive { index(id, keys: keys) }
    }

    @inlinable mutating func unserve(_ id: ID) {
        guard let keys = served.removeValue(forKey: id) else { return }
        for key in Set(keys) {
            if isLive, servedByKey[key]?.remove(id) != nil, servedByKey[key]!.isEmpty { servedByKey[key] = nil }
            release(key)
        }
    }

    /// Makes the entity wait for its keys; the keys neither cached nor in flight join the request.
    @inlinable mutating func wait(_ id: ID, keys: [_AssociationKey], requesting keysToRequest: inout [_AssociationKey])
    {
        waiting[id] = keys
        for key in Set(keys) { retain(key) }
        for key in keys where !values.keys.contains(key) {
            if inFlight[key] == nil { keysToRequest.append(key) }
            inFlight[key, default: []].insert(id)
        }
    }

    @inlinable mutating func unwait(_ id: ID) {
        guard let keys = waiting.removeValue(forKey: id) else { return }
        for key in Set(keys) {
            inFlight[key]?.remove(id)
            release(key)
        }
    }

    /// Records a served entity under its keys: a live association's events find it by them.
    @inlinable mutating func index(_ id: ID, keys: [_AssociationKey]) {
        for key in Set(keys) { servedByKey[key, default: []].insert(id) }
    }

    @inlinable mutating func retain(_ key: _AssociationKey) {
        references[key, default: 0] += 1
        if isLive, references[key] == 1 { referenceChanges[key] = true }
    }

    @inlinable mutating func release(_ key: _AssociationKey) {
        guard let count = references[key] else { return }
        if count > 1 {
            references[key] = count - 1
        } else {
            references[key] = nil
            values[key] = nil
            if isLive { referenceChanges[key] = false }
        }
    }
}
