/// How many items of each section a ``CollapsibleSections`` display shows: what its snapshot reads of the
/// controller's storage, every section included (a collapsed one as a header without items).
@usableFromInline struct _DisplayedItems: Sendable, Equatable {
    /// The displayed items of each section of the storage, by index.
    @usableFromInline let counts: [Int]
    /// Their sum: the number of displayed entities.
    @usableFromInline let total: Int

    @inlinable init(_ counts: [Int]) {
        self.counts = counts
        total = counts.reduce(0, +)
    }

    /// The section and item displayed at a position of the display, counting across sections.
    ///
    /// - Complexity: O(*s*) for *s* sections.
    @inlinable func indexPath(at position: Int) -> (section: Int, item: Int) {
        var remaining = position
        for (section, count) in counts.enumerated() {
            if remaining < count { return (section, remaining) }
            remaining -= count
        }
        preconditionFailure("position out of range")
    }
}
