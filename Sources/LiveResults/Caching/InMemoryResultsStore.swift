/// A ``ResultsStore`` that keeps results in memory, for tests and for caches that need not outlive the
/// process.
///
/// Thread-safe: every operation holds a lock for a dictionary access only, so a save is atomic and a
/// load sees a whole save or none. It never throws.
///
/// ```swift
/// let store = InMemoryResultsStore()
/// try await store.save(CachedResults(data: encoded, savedAt: Date()), forKey: "posts")
/// let cached = try await store.results(forKey: "posts")   // the same data and date
/// ```
public final class InMemoryResultsStore: ResultsStore {
    private let storage = _Lock<[String: CachedResults]>([:])

    /// Creates an empty store.
    public init() {}

    /// Returns the results saved under `key`, or `nil`.
    ///
    /// - Complexity: O(1) on average, plus the key's hashing.
    public func results(forKey key: String) async throws -> CachedResults? {
        storage.withLock { $0[key] }
    }

    /// Saves `results` under `key`, replacing what was there.
    ///
    /// - Complexity: O(1) on average, plus the key's hashing.
    public func save(_ results: CachedResults, forKey key: String) async throws {
        storage.withLock { $0[key] = results }
    }

    /// Removes what is saved under `key`, if anything.
    ///
    /// - Complexity: O(1) on average, plus the key's hashing.
    public func removeResults(forKey key: String) async throws {
        // Take the old value out under the lock and release it outside.
        let removed = storage.withLock { $0.removeValue(forKey: key) }
        _ = removed
    }
}
