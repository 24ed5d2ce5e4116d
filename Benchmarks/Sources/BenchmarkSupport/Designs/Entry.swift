/// A row with its insertion position, as the baselines store it.
struct Entry {
    var row: Row
    var position: Int

    /// Whether `lhs` comes before `rhs` in the display order.
    static func precedes(_ lhs: Entry, _ rhs: Entry) -> Bool {
        Row.precedes(lhs.row, at: lhs.position, rhs.row, at: rhs.position)
    }
}

extension RandomAccessCollection {
    /// The first index whose element satisfies `belongsInSecondPartition`, by binary search: the
    /// collection must hold the elements that fail it first.
    /// - Complexity: O(log *n*) calls of the predicate.
    func partitioningIndex(where belongsInSecondPartition: (Element) -> Bool) -> Index {
        var low = startIndex
        var count = self.count
        while count > 0 {
            let half = count / 2
            let middle = index(low, offsetBy: half)
            if belongsInSecondPartition(self[middle]) {
                count = half
            } else {
                low = index(after: middle)
                count -= half + 1
            }
        }
        return low
    }
}

extension RandomAccessCollection where Element == Entry {
    /// Where `entry` is, or would be inserted, in entries sorted by display order.
    /// - Complexity: O(log *n*).
    func insertionIndex(of entry: Entry) -> Index {
        partitioningIndex { !Entry.precedes($0, entry) }
    }
}
