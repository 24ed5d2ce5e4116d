import Foundation

/// What a ``ResultsStore`` keeps under a key: the results a controller encoded, and when it saved them.
///
/// The bytes are opaque to the store: the controller encodes them and decodes them again, and the
/// store only keeps them. `savedAt` lets the controller decide whether the results have expired.
///
/// ```swift
/// let cached = CachedResults(data: try JSONEncoder().encode(posts), savedAt: Date())
/// try await store.save(cached, forKey: "posts")
/// ```
public struct CachedResults: Sendable, Equatable {
    /// The encoded results, as the controller wrote them.
    public var data: Data
    /// When the results were saved.
    public var savedAt: Date

    /// Creates cached results from encoded bytes and the date they were saved.
    ///
    /// - Parameters:
    ///   - data: The encoded results.
    ///   - savedAt: When they were saved.
    public init(data: Data, savedAt: Date) {
        self.data = data
        self.savedAt = savedAt
    }
}
