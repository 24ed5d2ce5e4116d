/// One version of a controller's results as its update streams know it: the version's number, the
/// results then, and how many rebuilds (fetches, resorts, resets) came before it.
///
/// Two points with the same rebuild count share the nodes their changes did not copy, so the change
/// set between them is composed from what differs (``_VersionDiff``) in O(*k* log *n*); across a
/// rebuild they are compared whole.
@usableFromInline struct _VersionPoint<Entity: FetchableEntity>: Sendable {
    @usableFromInline let sequence: UInt64
    @usableFromInline let storage: _SectionedStorage<Entity>
    @usableFromInline let rebuilds: UInt64

    @inlinable init(sequence: UInt64, storage: _SectionedStorage<Entity>, rebuilds: UInt64) {
        self.sequence = sequence
        self.storage = storage
        self.rebuilds = rebuilds
    }

    /// The change set that turns this version into `later`.
    ///
    /// - Complexity: O(*k* log *n*) for *k* entities whose stored version differs; O(*n*) across a rebuild.
    @inlinable func changeSet(to later: _VersionPoint) -> ChangeSet<Entity> {
        _VersionDiff.changeSet(from: storage, to: later.storage, isRebuilt: rebuilds != later.rebuilds)
    }
}
