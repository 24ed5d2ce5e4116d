import Foundation
import LiveResults

/// Baseline (b): the classic controller design.
///
/// Each section is a sorted array, found and edited with binary search, and the sections are an array
/// sorted by name. After each change the design rebuilds an id → index path table over all entities,
/// which is how a classic controller answers `indexPath(for:)` in O(1). Changes are recorded one event
/// at a time, in the coordinates of that moment, as a classic delegate reports them.
///
/// - Complexity: O(*n*) per batch for the table, plus O(*n*/*s*) per event to shift a section's array.
public final class SortedArraysBaseline: ResultsDesign {
    private struct Section {
        var name: String
        var entries: [Entry]
    }

    private var sections: [Section] = []
    /// Id → the entity as shown, with its insertion position.
    private var current: [Int: Entry] = [:]
    /// Id → index path, rebuilt after each change.
    private var indexPaths: [Int: IndexPath] = [:]
    private var nextPosition = 0

    public init(fetching rows: [Row]) {
        let entries = rows.enumerated().map { Entry(row: $1, position: $0) }
        let sorted = entries.sorted { Entry.precedes($0, $1) }
        let layout = SectionLayout(sorted)
        sections = zip(layout.names, layout.ranges).map { Section(name: $0, entries: Array(sorted[$1])) }
        current = Dictionary(uniqueKeysWithValues: entries.map { ($0.row.id, $0) })
        nextPosition = rows.count
        rebuildIndexPaths()
    }

    public func apply(_ events: [EntityEvent<Row>]) -> Int {
        var changes = ChangeSet<Row>()
        for event in events { apply(event, recordingInto: &changes) }
        if !changes.isEmpty { rebuildIndexPaths() }
        return changes.count
    }

    public var contents: [SectionContents] {
        sections.map { SectionContents(name: $0.name, ids: $0.entries.map(\.row.id)) }
    }

    /// The index path of an entity, from the table.
    /// - Complexity: O(1).
    public func indexPath(forID id: Int) -> IndexPath? {
        indexPaths[id]
    }

    private func apply(_ event: EntityEvent<Row>, recordingInto changes: inout ChangeSet<Row>) {
        switch event {
        case .inserted(let row), .updated(let row):
            guard let old = current[row.id] else { return insertNew(row, recordingInto: &changes) }
            guard old.row != row else { return }
            replace(old, with: Entry(row: row, position: old.position), recordingInto: &changes)
        case .deleted(let id):
            guard let old = current.removeValue(forKey: id) else { return }
            changes.recordDeletion(at: remove(old, recordingInto: &changes), id: id)
        case .invalidated:
            break
        }
    }

    private func insertNew(_ row: Row, recordingInto changes: inout ChangeSet<Row>) {
        let entry = Entry(row: row, position: nextPosition)
        nextPosition += 1
        current[row.id] = entry
        changes.recordInsertion(at: insert(entry, recordingInto: &changes), id: row.id)
    }

    private func replace(_ old: Entry, with new: Entry, recordingInto changes: inout ChangeSet<Row>) {
        current[new.row.id] = new
        guard old.row.section != new.row.section || old.row.score != new.row.score else {
            let path = location(of: old)
            sections[path.section].entries[path.item] = new
            return changes.recordUpdate(at: path, id: new.row.id)
        }
        let source = remove(old, recordingInto: &changes)
        let destination = insert(new, recordingInto: &changes)
        changes.recordMove(from: source, to: destination, id: new.row.id)
        changes.recordUpdate(at: destination, id: new.row.id)
    }

    /// Inserts `entry` in its section, inserting the section first if it is new.
    private func insert(_ entry: Entry, recordingInto changes: inout ChangeSet<Row>) -> IndexPath {
        let name = entry.row.section
        let section = sectionIndex(named: name)
        if section == sections.count || sections[section].name != name {
            sections.insert(Section(name: name, entries: []), at: section)
            changes.recordSectionInsertion(section, name: name)
        }
        let item = sections[section].entries.insertionIndex(of: entry)
        sections[section].entries.insert(entry, at: item)
        return IndexPath(item: item, section: section)
    }

    /// Removes `entry`, and its section if that becomes empty.
    private func remove(_ entry: Entry, recordingInto changes: inout ChangeSet<Row>) -> IndexPath {
        let path = location(of: entry)
        sections[path.section].entries.remove(at: path.item)
        if sections[path.section].entries.isEmpty {
            changes.recordSectionDeletion(path.section, name: sections.remove(at: path.section).name)
        }
        return path
    }

    /// Where `entry` is shown, by binary search.
    private func location(of entry: Entry) -> IndexPath {
        let section = sectionIndex(named: entry.row.section)
        return IndexPath(item: sections[section].entries.insertionIndex(of: entry), section: section)
    }

    private func sectionIndex(named name: String) -> Int {
        sections.partitioningIndex { $0.name >= name }
    }

    private func rebuildIndexPaths() {
        indexPaths.removeAll(keepingCapacity: true)
        for (section, contents) in sections.enumerated() {
            for (item, entry) in contents.entries.enumerated() {
                indexPaths[entry.row.id] = IndexPath(item: item, section: section)
            }
        }
    }
}
