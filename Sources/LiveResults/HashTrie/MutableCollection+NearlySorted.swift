extension MutableCollection where Self: RandomAccessCollection {
    /// Sorts a collection whose elements are each near their place, by an integer key: an insertion
    /// sort, O(*n* + *d*) for *d* displaced pairs.
    ///
    /// What is left after a bulk build or a radix sort of high bits: runs of a few elements in any
    /// order, where a general sort would compare every element again.
    @inlinable mutating func _sortNearlySorted(by key: (Element) -> UInt64) {
        guard !isEmpty else { return }
        for index in indices.dropFirst() {
            let element = self[index]
            let elementKey = key(element)
            var target = index
            while target != startIndex && key(self[self.index(before: target)]) > elementKey {
                let previous = self.index(before: target)
                self[target] = self[previous]
                target = previous
            }
            self[target] = element
        }
    }
}
