/// The position of each entity of a positional storage (a ``ResultsReplica``'s), found from its id.
///
/// A replica does not know the sort its results follow: a change set places entities by position. To
/// find an entity's index path from its id in O(log *n*), every entity gets a *label*, a `UInt64` that
/// increases along the results in display order (across sections), kept as its record's sequence. A
/// counted tree of the labels in order gives the entity's flat position by a search for its label, and
/// the tree of sections, weighted by their counts, turns the flat position into an index path.
///
/// A new entity takes a label between its neighbours'. When they leave no room, a window of labels
/// around it is spread evenly again, doubled until it has room: an order-maintenance list. Labels are
/// 2³² apart when built, so a run of insertions at one place relabels after about 32 of them, and then
/// only a window of tens of entities.
@usableFromInline struct _PositionIndex<ID: Hashable & Sendable>: Sendable {
    @usableFromInline struct Label: _TreeElement {
        @usableFromInline var label: UInt64
        @usableFromInline var id: ID
        @inlinable var treeKey: UInt64 { label }
        @inlinable var treeWeight: Int { 1 }

        @usableFromInline init(label: UInt64, id: ID) {
            self.label = label
            self.id = id
        }
    }

    /// The labels in display order.
    @usableFromInline var labels = _Tree<Label>()

    /// The distance between labels built together, and the most an insertion at either end advances.
    @inlinable static var spacing: UInt64 { 1 << 32 }
    /// The least distance a relabelled window leaves between its labels, unless it is everything.
    @inlinable static var minimumGap: UInt64 { 1 << 16 }

    @inlinable init() {}

    /// The labels of `count` entities built at once: evenly spaced.
    @inlinable static func label(at position: Int, of count: Int) -> UInt64 {
        let spacing = Swift.min(spacing, UInt64.max / UInt64(count + 1))
        return UInt64(position + 1) * spacing
    }

    /// An index of entities in display order, labelled by ``label(at:of:)``.
    ///
    /// - Complexity: O(*n*).
    @inlinable init(ids: some Collection<ID>) {
        let count = ids.count
        labels = _Tree(
            sorted: ids.enumerated().map { Label(label: Self.label(at: $0.offset, of: count), id: $0.element) })
    }

    @inlinable var count: Int { labels.count }

    /// The flat position of the entity labelled `label`.
    ///
    /// - Complexity: O(log *n*).
    @inlinable func position(ofLabel label: UInt64) -> Int {
        labels.partitioningIndex { $0 >= label }
    }

    /// - Complexity: O(log *n*).
    @inlinable mutating func remove(at position: Int) {
        labels.remove(at: position)
    }

    /// Inserts the entity `id` at a flat position and labels it.
    ///
    /// - Parameter relabel: Called with each entity whose label changed, the new one included, and its
    ///   new label.
    /// - Complexity: O(log *n*) amortized.
    @inlinable mutating func insert(_ id: ID, at position: Int, relabel: (ID, UInt64) -> Void) {
        let count = labels.count
        let lower = position > 0 ? labels[position - 1].label : 0
        let upper = position < count ? labels[position].label : UInt64.max
        let room = upper - lower
        guard room < 2 else {
            let step =
                position == count
                ? Swift.min(room / 2, Self.spacing)
                : position == 0 ? room - Swift.min(room / 2, Self.spacing) : room / 2
            labels.insert(Label(label: lower + step, id: id), at: position)
            return relabel(id, lower + step)
        }
        labels.insert(Label(label: lower, id: id), at: position)
        spread(around: position, relabel: relabel)
    }

    /// Spreads the labels of the smallest window around `position` (64 entities, doubled as needed) that
    /// leaves at least ``minimumGap`` between them, or of everything.
    @inlinable mutating func spread(around position: Int, relabel: (ID, UInt64) -> Void) {
        let count = labels.count
        var width = 64
        while true {
            let end = Swift.min(count, Swift.max(0, position - width / 2) + width)
            let start = Swift.max(0, end - width)
            let lower = start > 0 ? labels[start - 1].label : 0
            let upper = end < count ? labels[end].label : UInt64.max
            let gap = (upper - lower) / UInt64(end - start + 1)
            if gap >= Self.minimumGap || (start == 0 && end == count) {
                precondition(gap >= 1, "more entities than labels")
                for offset in start..<end {
                    let label = lower + gap * UInt64(offset - start + 1)
                    let id = labels.modify(at: offset) { element -> ID in
                        element.label = label
                        return element.id
                    }
                    relabel(id, label)
                }
                return
            }
            width *= 2
        }
    }
}
