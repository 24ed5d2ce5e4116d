/// The tasks waiting in ``FetchedResultsController/associatedValue(_:for:)-8gp7q``
/// (the `async` variant) for an entity's value, by association and entity.
///
/// A waiter is resumed when its entity's wait ends (it got its value, or it was released); it then
/// reads again. It is resumed with the error when the request failed.
struct _AssociationWaiters<ID: Hashable & Sendable>: Sendable {
    struct Key: Hashable, Sendable {
        var association: ObjectIdentifier
        var id: ID
    }

    typealias Continuation = CheckedContinuation<Void, any Error>

    private var byKey: [Key: [UInt64: Continuation]] = [:]
    private var nextToken: UInt64 = 0

    /// A token for a waiter to add later: the waiter's task needs it first, to remove the waiter when
    /// it is cancelled.
    mutating func makeToken() -> UInt64 {
        defer { nextToken += 1 }
        return nextToken
    }

    /// Adds a waiter under a token from ``makeToken()``.
    mutating func add(_ continuation: Continuation, token: UInt64, for key: Key) {
        byKey[key, default: [:]][token] = continuation
    }

    /// Removes the waiter with this token, if it is still waiting.
    mutating func remove(_ token: UInt64, for key: Key) -> Continuation? {
        defer { if byKey[key]?.isEmpty == true { byKey[key] = nil } }
        return byKey[key]?.removeValue(forKey: token)
    }

    /// Removes every waiter for the entities with these ids.
    mutating func take(association: ObjectIdentifier, ids: some Sequence<ID>) -> [Continuation] {
        guard !byKey.isEmpty else { return [] }
        var taken: [Continuation] = []
        for id in ids {
            if let waiters = byKey.removeValue(forKey: Key(association: association, id: id)) {
                taken.append(contentsOf: waiters.values)
            }
        }
        return taken
    }
}
