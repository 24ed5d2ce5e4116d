import Foundation

/// The sections of a flat result sorted by display order: each section's name and first offset.
struct SectionLayout {
    private(set) var names: [String] = []
    private(set) var starts: [Int] = []
    private(set) var count = 0

    init() {}

    /// The layout of `sorted`, found in one pass.
    init(_ sorted: [Entry]) {
        for (offset, entry) in sorted.enumerated() where names.last != entry.row.section {
            names.append(entry.row.section)
            starts.append(offset)
        }
        count = sorted.count
    }

    /// Each section's range of offsets.
    var ranges: [Range<Int>] {
        zip(starts, starts.dropFirst() + [count]).map { $0..<$1 }
    }

    /// The index path of a flat offset.
    /// - Complexity: O(log *s*) for *s* sections.
    func indexPath(ofOffset offset: Int) -> IndexPath {
        let section = starts.partitioningIndex { $0 > offset } - 1
        return IndexPath(item: offset - starts[section], section: section)
    }
}
