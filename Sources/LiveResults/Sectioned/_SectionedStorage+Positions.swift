import Foundation

/// Display-order positions: the place of an entity in ``FetchedResultsSnapshot/fetchedObjects``, where
/// the sections follow one another.
///
/// These are the only position queries the rest of the library makes beyond ``indexPath(forID:)``, so a
/// storage with counted sections (a B-tree) can answer them in O(log *n*) without changing its callers.
extension _SectionedStorage {
    /// The position in display order of the entity at `indexPath`.
    ///
    /// - Precondition: `indexPath` is a valid section and item.
    /// - Complexity: O(log *s*) for *s* sections: the section tree sums the sizes of the sections before it.
    @inlinable func globalIndex(of indexPath: IndexPath) -> Int {
        sections.weight(before: indexPath[0]) + indexPath[1]
    }

    /// The index path of the entity at a position in display order.
    ///
    /// - Precondition: `0 <= globalIndex < count`.
    /// - Complexity: O(log *s*) for *s* sections.
    @inlinable func indexPath(atGlobalIndex globalIndex: Int) -> IndexPath {
        precondition(globalIndex >= 0 && globalIndex < count, "global index out of range")
        let (section, item) = sections.position(ofWeight: globalIndex)
        return IndexPath(_section: section, item: item)
    }

    /// The entities at a range of positions in display order, in that order.
    ///
    /// - Precondition: `range` lies within `0..<count`.
    /// - Complexity: O(*k* log *n*) for *k* entities in the range.
    @inlinable func stored(inGlobalRange range: Range<Int>) -> [_StoredEntity<Entity>] {
        guard !range.isEmpty else { return [] }
        precondition(range.upperBound <= count, "global range out of range")
        let start = indexPath(atGlobalIndex: range.lowerBound)
        var result: [_StoredEntity<Entity>] = []
        result.reserveCapacity(range.count)
        var (section, item) = (start[0], start[1])
        while result.count < range.count {
            let items = sections[section].items
            let take = Swift.min(items.count - item, range.count - result.count)
            for position in item..<(item + take) { result.append(records[items[position].id]!) }
            (section, item) = (section + 1, 0)
        }
        return result
    }
}
