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
    /// - Complexity: O(*s*) for *s* sections, to add up the sizes of the sections before it.
    func globalIndex(of indexPath: IndexPath) -> Int {
        sections[..<indexPath[0]].reduce(indexPath[1]) { $0 + $1.items.count }
    }

    /// The index path of the entity at a position in display order.
    ///
    /// - Precondition: `0 <= globalIndex < count`.
    /// - Complexity: O(*s*) for *s* sections.
    func indexPath(atGlobalIndex globalIndex: Int) -> IndexPath {
        precondition(globalIndex >= 0 && globalIndex < count, "global index out of range")
        var item = globalIndex
        for (section, entry) in sections.enumerated() {
            if item < entry.items.count { return IndexPath(indexes: [section, item]) }
            item -= entry.items.count
        }
        preconditionFailure("the sections hold fewer entities than count")
    }

    /// The entities at a range of positions in display order, in that order.
    ///
    /// - Precondition: `range` lies within `0..<count`.
    /// - Complexity: O(*s* + *k*) for *s* sections and *k* entities in the range.
    func stored(inGlobalRange range: Range<Int>) -> [_StoredEntity<Entity>] {
        guard !range.isEmpty else { return [] }
        precondition(range.upperBound <= count, "global range out of range")
        let start = indexPath(atGlobalIndex: range.lowerBound)
        var result: [_StoredEntity<Entity>] = []
        result.reserveCapacity(range.count)
        var (section, item) = (start[0], start[1])
        while result.count < range.count {
            let items = sections[section].items
            let take = min(items.count - item, range.count - result.count)
            result.append(contentsOf: items[item..<item + take])
            (section, item) = (section + 1, 0)
        }
        return result
    }
}
