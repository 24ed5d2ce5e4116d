import Foundation

extension FetchedResultsController {
    /// Where the results shown come from: ``ResultsOrigin/none`` before anything was shown and after a
    /// reset, ``ResultsOrigin/cache(savedAt:)`` while results saved by the definition's
    /// ``ResultsCachePolicy`` are shown, ``ResultsOrigin/request`` once a request's results are.
    ///
    /// ```swift
    /// try await controller.performFetch()
    /// if case .cache(let savedAt) = controller.resultsOrigin { print("offline copy from \(savedAt)") }
    /// ```
    ///
    /// Live events and pages do not change it: they apply to the results it names.
    @inlinable public var resultsOrigin: ResultsOrigin {
        _state.withLock { $0.fetchCycle.origin }
    }

    /// A fetch of a controller that shows nothing, with a cache: uses the saved results as the policy says.
    ///
    /// Inlinable, as `performFetch()` is, so that the build of the results it shows is specialized for
    /// the entity type: unspecialized, a cold start from the cache took 1.7× the time of decoding the
    /// file and fetching the decoded array.
    ///
    /// - Returns: The change set from the empty results to those shown, or `nil` when superseded.
    @inlinable func fetch(
        generation: UInt64, startingFrom cache: _ResultsCache<Entity>
    ) async throws -> ChangeSet<Entity>? {
        switch cache.policy.usage {
        case .ifFetchFails:
            // Read and decoded while the request runs, so that a damaged cache is reported before the
            // save replaces it, as with the other usages.
            let saved = Task { await self.loadCache(cache) }
            return try await fetch(generation: generation, plan: (1, 0), fallback: saved)
        case .insteadOfFetching:
            guard let cached = await loadCache(cache) else {
                return try await fetch(generation: generation, plan: (1, 0))
            }
            return show(cached.chain, from: .cache(savedAt: cached.savedAt), generation: generation)
        case .thenFetch:
            guard let cached = await loadCache(cache) else {
                return try await fetch(generation: generation, plan: (1, 0))
            }
            let origin = ResultsOrigin.cache(savedAt: cached.savedAt)
            guard show(cached.chain, from: origin, generation: generation, refreshing: true) != nil else { return nil }
            let plan = _state.withLock { $0.paging.reloadPlan }
            guard try await fetch(generation: generation, plan: plan) != nil else { return nil }
            // Taken under the lock in O(1), compared outside it.
            let shown = _state.withLock { $0.core.storage }
            return _SnapshotDiff.everything(of: shown, inserted: true)
        }
    }

    /// The saved results, decoded, if they exist and have not expired; a failure to read or decode them
    /// is reported and counts as no saved results.
    @usableFromInline func loadCache(_ cache: _ResultsCache<Entity>) async -> _CachedChain<Entity>? {
        do {
            guard let saved = try await cache.policy.store.results(forKey: cache.policy.key),
                cache.policy.isFresh(savedAt: saved.savedAt)
            else { return nil }
            return _CachedChain(chain: try cache.decode(saved.data), savedAt: saved.savedAt)
        } catch {
            cacheLoadFailed(error)
            return nil
        }
    }

    /// Counts and reports saved results that could not be read or decoded.
    @usableFromInline func cacheLoadFailed(_ error: any Error) {
        count(\.failedCacheLoads, reporting: .cacheLoadFailed(error))
    }

    /// Saves the results shown, with the cursors of their pages, to the definition's cache, after the
    /// saves started before; a failure is reported.
    ///
    /// The results are taken under the lock in O(1); they are listed, encoded and saved outside it.
    @usableFromInline func saveToCache() async {
        guard let cache = definition._cache else { return }
        let save = _state.withLock { state -> Task<Void, Never>? in
            guard state.fetchCycle.isLive else { return nil }
            let storage = state.core.storage
            let paging = state.paging
            let previous = state.fetchCycle.lastCacheSave
            let save = Task { [weak self] in
                await previous?.value
                let chain = _PageChain(
                    pages: [Array(FetchedObjects(_storage: storage))], next: paging.nextCursor,
                    previous: paging.previousCursor, forwardPages: paging.forwardPages,
                    backwardPages: paging.backwardPages)
                do {
                    let saved = CachedResults(data: try cache.encode(chain), savedAt: cache.policy.now())
                    try await cache.policy.store.save(saved, forKey: cache.policy.key)
                } catch {
                    self?.cacheSaveFailed(error)
                }
            }
            state.fetchCycle.lastCacheSave = save
            return save
        }
        await save?.value
    }

    /// Counts and reports results that could not be saved.
    @usableFromInline func cacheSaveFailed(_ error: any Error) {
        count(\.failedCacheSaves, reporting: .cacheSaveFailed(error))
    }
}
