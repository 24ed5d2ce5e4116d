/// The tasks waiting in ``FetchedResultsController/loadAssociatedValue(_:for:)``
/// (the `async` variant) for an entity's value, by association and entity.
///
/// A waiter is resumed when its entity's wait ends (it got its value, or it was released); it then
/// reads again. It is resumed with the error when the request failed.
@usableFromInline struct _AssociationWaiters<ID: Hashable & Sendable>: Sendable {
    @usableFromInline struct Key: Hashable, Sendable {
        @usableFromInline var association: ObjectIdentifier
        @usableFromInline var id: ID

        @usableFromInline
        init(association: ObjectIdentifier, id: ID) {
            self.association = association
            self.id = id
        }
    }

    @usableFromInline typealias Continuation = CheckedContinuation<Void, any Error>

    @usableFromInline var byKey: [Key: [UInt64: Continuation]] = [:]
    @usableFromInline var nextToken: UInt64 = 0

    /// A token for a waiter to add later: the waiter's task needs it first, to remove the waiter when
    /// it is cancelled.
    @inlinable mutating func makeToken() -> UInt64 {
        defer { nextToken += 1 }
        return nextToken
    }

    /// Adds a waiter under a token from ``makeToken()``.
    @inlinable mutating func add(_ continuation: Continuation, token: UInt64, for key: Key) {
        byKey[key, default: [:]][token] = continuation
    }

    /// Removes the waiter with this token, if it is still waiting.
    @inlinable mutating func remove(_ token: UInt64, for key: Key) -> Continuation? {
        defer { if byKey[key]?.isEmpty == true { byKey[key] = nil } }
        return byKey[key]?.removeValue(forKey: token)
    }

    /// Removes every waiter for the entities with these ids.
    @inlinable mutating func take(association: ObjectIdentifier, ids: some Sequence<ID>) -> [Continuation] {
        guard !byKey.isEmpty else { return [] }
        var taken: [Continuation] = []
        for id in ids {
            if let waiters = byKey.removeValue(forKey: Key(association: association, id: id)) {
                taken.append(contentsOf: waiters.values)
            }
        }
        return taken
    }

    @usableFromInline
    init(byKey: [Key: [UInt64: Continuation]] = [:], nextToken: UInt64 = 0) {
        self.byKey = byKey
        self.nextToken = nextToken
    }
}
