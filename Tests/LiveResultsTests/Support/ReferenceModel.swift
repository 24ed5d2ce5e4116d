import Foundation
import LiveResults

/// The ordering rule, done the slow, obvious way: keep every entity with its insertion number and sort
/// everything after each change. The controller must always agree with it.
struct ReferenceModel {
    var isIncluded: (Item) -> Bool = { _ in true }
    var sectioned = true
    var descendingSections = false
    /// Whether titles break ties of scores (before insertion order).
    var sortsByTitleToo = false
    private(set) var entries: [Int: (item: Item, sequence: Int)] = [:]
    private var nextSequence = 0

    init(isIncluded: @escaping (Item) -> Bool = { _ in true }, sectioned: Bool = true, descendingSections: Bool = false)
    {
        self.isIncluded = isIncluded
        self.sectioned = sectioned
        self.descendingSections = descendingSections
    }

    mutating func fetch(_ items: [Item]) {
        entries = [:]
        nextSequence = 0
        // The first occurrence of an id decides, even when the inclusion rule then excludes it.
        var seen = Set<Int>()
        for (position, item) in items.enumerated() where seen.insert(item.id).inserted && isIncluded(item) {
            entries[item.id] = (item, position)
        }
        nextSequence = items.count
    }

    mutating func apply(_ event: EntityEvent<Item>) {
        switch event {
        case .inserted(let item), .updated(let item):
            if let existing = entries[item.id] {
                entries[item.id] = isIncluded(item) ? (item, existing.sequence) : nil
            } else if isIncluded(item) {
                entries[item.id] = (item, nextSequence)
                nextSequence += 1
            }
        case .deleted(let id):
            entries[id] = nil
        case .invalidated:
            break
        }
    }

    var snapshot: SnapshotModel<Item> {
        let sorted = entries.values.sorted { lhs, rhs in
            let (a, b) = (section(lhs.item), section(rhs.item))
            if a != b { return descendingSections ? a > b : a < b }
            if lhs.item.score != rhs.item.score { return lhs.item.score < rhs.item.score }
            if sortsByTitleToo && lhs.item.title != rhs.item.title { return lhs.item.title < rhs.item.title }
            return lhs.sequence < rhs.sequence
        }
        var sections: [(name: String, items: [Item])] = []
        for entry in sorted {
            if sections.last?.name == section(entry.item) {
                sections[sections.count - 1].items.append(entry.item)
            } else {
                sections.append((section(entry.item), [entry.item]))
            }
        }
        return SnapshotModel(sections: sections)
    }

    private func section(_ item: Item) -> String { sectioned ? item.section : "" }
}
