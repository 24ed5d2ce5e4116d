/// What turns one version of the results back into the version before it: the stored versions, before
/// the changes, of the entities the changes touched (absent ones as `nil`), or the whole storage a rebuild
/// replaced.
///
/// While update streams may resume, ``_ResultsCore`` records one as it changes the storage
/// (``_ResultsCore/undo``), and each delivered version keeps the one that led to it (``_UpdateFeed``).
/// Undoing the versions after *v*, newest first, from the current storage gives the results of *v*
/// with the insertion sequences they had, in O(*k* log *n*) for *k* changes. Unlike a snapshot of each
/// version, this holds no node the next change would have to copy: a snapshot per version made every
/// change copy its path, and freed that copy when the version left the history.
@usableFromInline struct _VersionUndo<Entity: FetchableEntity>: Sendable {
    /// One entity as it was before a change.
    @usableFromInline struct Entry: Sendable {
        @usableFromInline let id: Entity.ID
        @usableFromInline let before: _StoredEntity<Entity>?

        @inlinable init(id: Entity.ID, before: _StoredEntity<Entity>?) {
            self.id = id
            self.before = before
        }
    }

    /// A storage that a rebuild replaced, behind a reference: inline, its optional made every undo (each version
    /// a window or a controller holds, and each window's pending undo) as large as a storage, for the rare rebuild.
    @usableFromInline final class Replaced: Sendable {
        @usableFromInline let storage: _SectionedStorage<Entity>

        @inlinable init(_ storage: _SectionedStorage<Entity>) {
            self.storage = storage
        }
    }

    /// The entities' earlier versions, in the order of the changes.
    @usableFromInline var entries: [Entry] = []
    @usableFromInline var _replaced: Replaced?

    @inlinable init() {}

    /// The storage that the first rebuild (fetch, resort, reset) replaced; entries after it are not kept.
    @inlinable var replaced: _SectionedStorage<Entity>? { _replaced?.storage }

    /// Records `id`'s stored version before a change.
    @inlinable mutating func record(_ id: Entity.ID, before: _StoredEntity<Entity>?) {
        guard _replaced == nil else { return }
        entries.append(Entry(id: id, before: before))
    }

    /// Records the storage a rebuild replaces.
    @inlinable mutating func recordReplacement(of storage: _SectionedStorage<Entity>) {
        guard _replaced == nil else { return }
        _replaced = Replaced(storage)
    }

    /// Turns `storage` back into the results before the changes recorded.
    ///
    /// - Complexity: O(*k* log *n*) for *k* entries; O(1) after a rebuild.
    @inlinable func undo(_ storage: inout _SectionedStorage<Entity>) {
        if let _replaced { storage = _replaced.storage }
        for entry in entries.reversed() {
            storage.remove(id: entry.id)
            if let before = entry.before { storage.insert(before) }
        }
    }
}
