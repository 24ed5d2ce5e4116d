/// Where a controller persists its results between launches, under a string key.
///
/// The library ships ``InMemoryResultsStore`` and ``FileResultsStore``; write your own over a
/// database, a key-value store or a remote cache by implementing the three requirements. Every
/// implementation must guarantee:
///
/// - **A save replaces atomically**: after ``save(_:forKey:)`` returns, a load returns exactly what was
///   saved; two saves to one key at once leave exactly one of them, never a mix.
/// - **A load never returns a partial save**: ``results(forKey:)`` returns a complete earlier save or
///   `nil`, and throws rather than return bytes it cannot vouch for.
/// - **Removing what is not there is not an error**.
/// - **It is safe to call from any task at once** (`Sendable`).
///
/// A controller treats a store's error as a reason to ignore the cache (it reports the error and
/// fetches), never as a fatal one.
///
/// ```swift
/// struct DefaultsStore: ResultsStore {
///     func results(forKey key: String) async throws -> CachedResults? { … }
///     func save(_ results: CachedResults, forKey key: String) async throws { … }
///     func removeResults(forKey key: String) async throws { … }
/// }
/// ```
public protocol ResultsStore: Sendable {
    /// Returns the results saved under `key`, or `nil` when nothing is saved there.
    ///
    /// - Parameter key: Any string: implementations must accept every key, whatever its characters
    ///   or length.
    /// - Returns: The complete results of an earlier save, or `nil`.
    /// - Throws: When something is saved but cannot be read or is damaged. Never returns part of a save.
    func results(forKey key: String) async throws -> CachedResults?

    /// Saves `results` under `key`, atomically replacing what was saved there.
    ///
    /// - Parameters:
    ///   - results: The results to keep.
    ///   - key: Any string.
    /// - Throws: When the results could not be saved; what was saved before stays or is gone, but a
    ///   later load never sees a partial save.
    func save(_ results: CachedResults, forKey key: String) async throws

    /// Removes what is saved under `key`; does nothing when nothing is.
    ///
    /// - Parameter key: Any string.
    /// - Throws: When saved results exist but could not be removed.
    func removeResults(forKey key: String) async throws
}
