/// An association with its key and value types erased: what a controller's cache works with.
///
/// Not API: it is public only because ``AssociationProtocol`` requires it, and it cannot be created
/// outside the library.
public struct _AnyAssociation<Entity: FetchableEntity>: Sendable {
    /// The keys of an entity, in the entity's own order; empty when it has none (a `nil` optional key).
    @usableFromInline let keys: @Sendable (Entity) -> [_AssociationKey]
    /// The batch request: every key it is given appears at most once.
    @usableFromInline let request: @Sendable ([_AssociationKey]) async throws -> [_AssociationKey: any Sendable]
    @usableFromInline let backoff: AssociationBackoff
    /// The subscription to the related source of a live association; `nil` for one that is not live.
    @usableFromInline let follower: _AssociationFollower?

    @inlinable init(
        keys: @escaping @Sendable (Entity) -> [_AssociationKey],
        request: @escaping @Sendable ([_AssociationKey]) async throws -> [_AssociationKey: any Sendable],
        backoff: AssociationBackoff,
        follower: _AssociationFollower? = nil
    ) {
        self.keys = keys
        self.request = request
        self.backoff = backoff
        self.follower = follower
    }

    /// Erases a typed batch request. The keys are the ones `keys` produced, so they hold `Key`s.
    @inlinable static func erase<Key: Hashable & Sendable, Result: Sendable>(
        _ request: @escaping @Sendable ([Key]) async throws -> [Key: Result]
    ) -> @Sendable ([_AssociationKey]) async throws -> [_AssociationKey: any Sendable] {
        { keys in
            let results = try await request(keys.map { $0.base.base as! Key })
            var erased: [_AssociationKey: any Sendable] = [:]
            erased.reserveCapacity(results.count)
            for (key, value) in results {
                erased[_AssociationKey(key)] = value
            }
            return erased
        }
    }
}
