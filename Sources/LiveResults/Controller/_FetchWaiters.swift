/// The ``FetchedResultsController/performFetch()`` calls that a newer fetch superseded, waiting for the
/// newest fetch to settle (show its results or fail) or for a reset: a value of the fetch in flight
/// (``_FetchCycle/Fetch``), by the tokens ``_FetchCycle/makeWaiterToken()`` gave them.
@usableFromInline struct _FetchWaiters: Sendable {
    @usableFromInline typealias Continuation = CheckedContinuation<Void, any Error>

    @usableFromInline var waiting: [UInt64: Continuation] = [:]

    @inlinable init() {}

    /// Whether no call waits.
    @inlinable var isEmpty: Bool { waiting.isEmpty }

    /// Adds a waiter under its token.
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
