import Foundation

/// How a ``FetchDefinition`` persists its results between launches: where, under which key, for how
/// long they stay usable, and how a fetch uses them.
///
/// ```swift
/// let definition = FetchDefinition<Post>(                       // Post: Codable
///     request: { try await api.posts() },
///     cache: ResultsCachePolicy(key: "posts", store: FileResultsStore(directory: cacheFolder),
///                               expiry: .after(.seconds(600)), usage: .thenFetch)
/// )
/// ```
///
/// The cache is read by a fetch of a controller that shows nothing yet: its first fetch, or the first
/// after a ``FetchedResultsController/reset()``. A refetch of a controller that shows results always
/// makes its request, since what it shows is at least as new as the cache. Every successful request,
/// and every page a paginated definition loads, saves the results shown (in display order, with the
/// pages' cursors) under ``key``; live events reach the cache with the next save.
///
/// A cache that cannot be read or decoded is reported as ``ControllerDiagnostic/cacheLoadFailed(_:)``
/// and ignored; a failed save is reported as ``ControllerDiagnostic/cacheSaveFailed(_:)`` and the fetch
/// still succeeds. Neither is ever fatal.
public struct ResultsCachePolicy: Sendable {
    /// How long saved results stay usable.
    public enum Expiry: Sendable, Hashable {
        /// Saved results never expire.
        case never
        /// Saved results expire this long after they were saved; a duration of zero or less makes them
        /// expire at once.
        case after(Duration)
    }

    /// How a fetch uses saved results that have not expired.
    public enum Usage: Sendable, Hashable {
        /// Show the saved results and make no request. Without usable saved results, fetch.
        case insteadOfFetching
        /// Fetch; only when the request fails, show the saved results instead (the fetch then succeeds,
        /// reports the request's failure as ``ControllerDiagnostic/fetchFailed(_:)`` and counts it).
        case ifFetchFails
        /// Show the saved results at once, then fetch and report the difference as one change set. While
        /// the request runs, ``FetchedResultsController/state`` is ``FetchState/loading``; if it fails,
        /// the saved results stay shown and the state is ``FetchState/failed(_:)``.
        case thenFetch
    }

    /// The key the results are saved under in ``store``.
    public var key: String
    /// Where the results are saved.
    public var store: any ResultsStore
    /// How long saved results stay usable.
    public var expiry: Expiry
    /// How a fetch uses saved results.
    public var usage: Usage
    /// The clock that dates saves and decides expiry; tests inject their own.
    public var now: @Sendable () -> Date

    /// Creates a cache policy.
    ///
    /// - Parameters:
    ///   - key: The key the results are saved under; give each definition a key of its own.
    ///   - store: Where the results are saved.
    ///   - expiry: How long saved results stay usable; they never expire by default.
    ///   - usage: How a fetch uses saved results; ``Usage/thenFetch`` by default.
    ///   - now: The clock that dates saves and decides expiry; the system clock by default.
    public init(
        key: String,
        store: any ResultsStore,
        expiry: Expiry = .never,
        usage: Usage = .thenFetch,
        now: @escaping @Sendable () -> Date = Date.init
    ) {
        self.key = key
        self.store = store
        self.expiry = expiry
        self.usage = usage
        self.now = now
    }

    /// Whether results saved at `savedAt` are still usable now.
    ///
    /// Results dated later than now (a clock set back) count as just saved.
    ///
    /// - Complexity: O(1), plus one call of ``now``.
    public func isFresh(savedAt: Date) -> Bool {
        switch expiry {
        case .never:
            return true
        case .after(let lifetime):
            let (seconds, attoseconds) = lifetime.components
            let interval = TimeInterval(seconds) + TimeInterval(attoseconds) * 1e-18
            guard interval > 0 else { return false }
            return now().timeIntervalSince(savedAt) < interval
        }
    }
}
