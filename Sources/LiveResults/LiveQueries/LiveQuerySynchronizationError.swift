/// A live query's results could not be brought up to date: its source's ``QueryableSource/synchronize()`` failed
/// (its timeout passed, its database could not be reached), so they may lack changes committed before the request.
///
/// ``LiveQueryRegistry/currentResults(for:)`` throws it; a server answers it as "try again later" rather than
/// with results that may be stale.
public struct LiveQuerySynchronizationError: Error, Sendable, CustomStringConvertible {
    /// The source's error.
    ///
    /// - Complexity: O(1).
    public var underlying: any Error

    /// The error of a synchronization that failed with `underlying`.
    ///
    /// - Complexity: O(1).
    public init(underlying: any Error) {
        self.underlying = underlying
    }

    /// What failed, and why.
    ///
    /// - Complexity: O(1).
    public var description: String { "the live results could not catch up with their source: \(underlying)" }
}
