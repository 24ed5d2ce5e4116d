import Foundation
import LiveResults

/// The ordering rule (the *ReadingAndOrdering* article) the slow, obvious way: every entity with its insertion number,
/// everything sorted by section, score, then insertion number after each step. The controller's
/// results must always equal it.
struct SoakReference {
    struct Entry: Equatable {
        var item: SoakItem
        var sequence: Int
    }

    private(set) var entries: [Int: Entry] = [:]
    private var nextSequence = 0

    /// A fetch result: the first occurrence of an id decides; the order of the result numbers them.
    mutating func fetch(_ items: [SoakItem]) {
        entries = [:]
        nextSequence = 0
        for item in items where entries[item.id] == nil {
            entries[item.id] = Entry(item: item, sequence: nextSequence)
            nextSequence += 1
        }
        nextSequence = Swift.max(nextSequence, items.count)
    }

    /// What a paginated fetch of these pages shows: the first page fetched, each later one applied as
    /// insertions (what loading them one by one gives).
    mutating func fetch(pages: [[SoakItem]]) {
        fetch(pages.first ?? [])
        for page in pages.dropFirst() { apply(page.map { .inserted($0) }) }
    }

    mutating func apply(_ events: [EntityEvent<SoakItem>]) {
        for event in events {
            switch event {
            case .inserted(let item), .updated(let item):
                if let existing = entries[item.id] {
                    entries[item.id] = Entry(item: item, sequence: existing.sequence)
                } else {
                    entries[item.id] = Entry(item: item, sequence: nextSequence)
                    nextSequence += 1
                }
            case .deleted(let id): entries[id] = nil
            case .invalidated: break
            }
        }
    }

    func entry(_ id: Int) -> Entry? { entries[id] }

    /// Puts a version back (an optimistic update rolled back).
    mutating func restore(_ id: Int, to entry: Entry?) {
        entries[id] = entry
    }

    /// The entities in display order, with their sections.
    var sections: [(name: String, items: [SoakItem])] {
        // One integer key per entity (section, score, insertion number), so that the sort compares numbers.
        let values = Array(entries.values)
        let keys = values.indices.map { index -> (UInt64, Int) in
            let entry = values[index]
            let section = UInt64(soakSections.firstIndex(of: entry.item.section) ?? soakSections.count)
            return (section << 56 | UInt64(entry.item.score) << 40 | UInt64(entry.sequence), index)
        }
        let sorted = keys.sorted { $0.0 < $1.0 }.map { values[$0.1] }
        var sections: [(name: String, items: [SoakItem])] = []
        for entry in sorted {
            if sections.last?.name == entry.item.section {
                sections[sections.count - 1].items.append(entry.item)
            } else {
                sections.append((entry.item.section, [entry.item]))
            }
        }
        return sections
    }

    var ids: [Int] { Array(entries.keys) }
    var count: Int { entries.count }
}
