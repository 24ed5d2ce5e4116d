/// Which entities of two snapshots are the same (same id), by display position, and which of those
/// changed content.
@usableFromInline struct _SnapshotMatch {
    /// The old position of the entity at each new position, or -1 for an inserted one.
    @usableFromInline var oldPositions: [Int32]
    /// The new position of the entity at each old position, or -1 for a deleted one.
    @usableFromInline var newPositions: [Int32]
    /// Whether the entity at each new position differs from its old version.
    @usableFromInline var changed: [Bool]

    @inlinable init(oldCount: Int, newCount: Int) {
        precondition(oldCount < Int(Int32.max) && newCount < Int(Int32.max), "too many entities")
        oldPositions = Array(repeating: -1, count: newCount)
        newPositions = Array(repeating: -1, count: oldCount)
        changed = Array(repeating: false, count: newCount)
    }

    /// Records that the entity at `old` is now at `new`.
    @inlinable mutating func pair(old: Int, new: Int, changed isChanged: Bool) {
        oldPositions[new] = Int32(truncatingIfNeeded: old)
        newPositions[old] = Int32(truncatingIfNeeded: new)
        if isChanged { changed[new] = true }
    }
}
