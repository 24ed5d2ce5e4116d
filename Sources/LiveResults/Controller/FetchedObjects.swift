/// All entities of a ``FetchedResultsSnapshot`` in display order, section after section.
public struct FetchedObjects<Entity: FetchableEntity>: RandomAccessCollection, Sendable {
    let _storage: _SectionedStorage<Entity>
    /// `_sectionStarts[s]` is the position of the first entity of section `s`.
    private let _sectionStarts: [Int]

    init(_storage: _SectionedStorage<Entity>) {
        self._storage = _storage
        var start = 0
        _sectionStarts = _storage.sections.map { section in
            defer { start += section.items.count }
            return start
        }
    }

    /// Always 0.
    public var startIndex: Int { 0 }
    /// The number of elements.
    public var endIndex: Int { _storage.count }

    /// - Complexity: O(log *s*) for *s* sections.
    public subscript(position: Int) -> Entity {
        precondition(position >= 0 && position < endIndex, "index out of range")
        var low = 0
        var high = _sectionStarts.count
        while high - low > 1 {
            let middle = (low + high) / 2
            if _sectionStarts[middle] <= position { low = middle } else { high = middle }
        }
        return _storage.sections[low].items[position - _sectionStarts[low]].entity
    }
}
