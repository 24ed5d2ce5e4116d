/// The ``FetchedResultsController/performFetch()`` calls that a newer fetch superseded, waiting for the
/// newest fetch to settle (show its results or fail) or for a reset. A value in ``_FetchCycle``.
@usableFromInline struct _FetchWaiters: Sendable {
    @usableFromInline typealias Continuation = CheckedContinuation<Void, any Error>

    @usableFromInline var waiting: [UInt64: Continuation] = [:]
    @usableFromInline var nextToken: UInt64 = 0

    @inlinable init() {}

    /// A token for a waiter to add later: the waiter's task needs it first, to remove the waiter when it is
    /// cancelled.
    @inlinable mutating func makeToken() -> UInt64 {
        defer { nextToken += 1 }
        return nextToken
    }

    /// Adds a waiter under a token from ``makeToken()``.
    @inlinable mutating func add(_ continuation: Continuation, token: UInt64) {
        waiting[token] = continuation
    }

    /// Removes the waiter with this token, if it is still waiting.
    @inlinable mutating func remove(_ token: UInt64) -> Continuation? {
        waiting.removeValue(forKey: token)
    }

    /// Removes every waiter.
    @inlinable mutating func takeAll() -> [Continuation] {
        guard !waiting.isEmpty else { return [] }
        defer { waiting = [:] }
        return Array(waiting.values)
    }
}
