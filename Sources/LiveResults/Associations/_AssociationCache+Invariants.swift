extension _AssociationCache {
    /// Traps unless the cache is consistent: no entity both served and waiting, every served entity's
    /// keys cached, every reference counted, no cached value without a reference, no key both cached
    /// and in flight, every waiter of a key waiting, every waiting entity waiting for a key in flight, the
    /// served entities indexed by key, and an override only for a key in flight.
    /// With `storage`, also that every served or waiting entity that is shown has the keys it was
    /// served or is waiting with.
    ///
    /// - Complexity: O(*v* + *e* + *r*); for tests.
    @inlinable func _checkInvariants(shownIn storage: _SectionedStorage<Entity>? = nil) {
        var counted: [_AssociationKey: Int] = [:]
        for (id, keys) in served {
            precondition(waiting[id] == nil, "entity \(id) is served and waiting")
            precondition(keys.allSatisfy(values.keys.contains), "served entity \(id) misses a value")
            for key in Set(keys) { counted[key, default: 0] += 1 }
        }
        for (id, keys) in waiting {
            precondition(keys.contains { inFlight[$0]?.contains(id) == true }, "entity \(id) waits for nothing")
            for key in Set(keys) { counted[key, default: 0] += 1 }
        }
        precondition(counted == references, "references \(references) are not the count \(counted)")
        var servedBy: [_AssociationKey: Set<ID>] = [:]
        for (id, keys) in served {
            for key in keys { servedBy[key, default: []].insert(id) }
        }
        precondition(
            servedByKey == (isLive ? servedBy : [:]), "the served entities by key \(servedByKey) are not \(servedBy)")
        precondition(overrides.keys.allSatisfy { inFlight[$0] != nil }, "an override's key is not in flight")
        precondition(values.keys.allSatisfy { references[$0] != nil }, "a cached value has no reference")
        for (key, waiters) in inFlight {
            precondition(!values.keys.contains(key), "key \(key.base) is cached and in flight")
            precondition(waiters.allSatisfy { waiting[$0] != nil }, "a waiter of key \(key.base) does not wait")
        }
        guard let storage else { return }
        for (id, keys) in served.merging(waiting, uniquingKeysWith: { served, _ in served }) {
            guard let stored = storage.stored(forID: id) else { continue }
            precondition(erased.keys(stored.entity) == keys, "entity \(id) is shown with other keys")
        }
    }
}

extension FetchedResultsController {
    /// Traps unless every association cache is consistent. For the library's tests; not API.
    @_spi(Testing) @inlinable public func _checkAssociationInvariants() {
        _state.withLock { state in
            state.associations.caches.values.forEach { $0._checkInvariants(shownIn: state.core.storage) }
        }
    }

    /// Whether no association request is in flight and no change set waits for delivery or is being
    /// delivered. For the library's tests; not API.
    @_spi(Testing) @inlinable public var _associationsAreIdle: Bool {
        _state.withLock { state in
            state.associations.caches.values.allSatisfy(\.inFlight.isEmpty) && !state.engine.hasPendingDeliveries
                && !state.engine.isDelivering
        }
    }
}
