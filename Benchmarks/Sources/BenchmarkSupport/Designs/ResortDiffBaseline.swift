import Foundation
import LiveResults

/// Baseline (a): "re-fetch, re-sort, diff".
///
/// The source keeps its rows in its own order (appended on insert, swap-removed on delete, as a store
/// would return them). After every batch the design sorts all rows again with a hand-written comparison
/// and diffs the new result against the old one with the standard library's `difference(from:)`.
/// It diffs (section, id) keys rather than bare ids, so that an entity that changes section without
/// changing its flat position is still reported as moved.
///
/// - Complexity: O(*n* log *n*) per batch for the sort, plus O((*n* + *d*) · *d*) for the diff of
///   *d* changes.
public final class ResortDiffBaseline: ResultsDesign {
    private struct Key: Hashable {
        var section: String
        var id: Int
    }

    /// The source's rows, in store order.
    private var store: [Entry] = []
    /// Id → index in `store`.
    private var slots: [Int: Int] = [:]
    private var nextPosition = 0
    /// The current result, sorted, with its keys and sections.
    private var result: [Entry] = []
    private var keys: [Key] = []
    private var layout = SectionLayout()

    public init(fetching rows: [Row]) {
        store.reserveCapacity(rows.count)
        for row in rows { add(row) }
        resort()
    }

    public func apply(_ events: [EntityEvent<Row>]) -> Int {
        var updatedIDs: Set<Int> = []
        for event in events { mutateStore(with: event, updatedIDs: &updatedIDs) }
        let (oldKeys, oldLayout) = (keys, layout)
        resort()
        var changes = ChangeSet<Row>()
        recordSectionChanges(from: oldLayout, into: &changes)
        recordItemChanges(from: oldKeys, in: oldLayout, into: &changes)
        recordUpdates(of: updatedIDs, into: &changes)
        return changes.count
    }

    public var contents: [SectionContents] {
        zip(layout.names, layout.ranges).map { name, range in
            SectionContents(name: name, ids: result[range].map(\.row.id))
        }
    }

    private func add(_ row: Row) {
        slots[row.id] = store.count
        store.append(Entry(row: row, position: nextPosition))
        nextPosition += 1
    }

    private func mutateStore(with event: EntityEvent<Row>, updatedIDs: inout Set<Int>) {
        switch event {
        case .inserted(let row), .updated(let row):
            guard let slot = slots[row.id] else { return add(row) }
            guard store[slot].row != row else { return }
            store[slot].row = row
            updatedIDs.insert(row.id)
        case .deleted(let id):
            guard let slot = slots.removeValue(forKey: id) else { return }
            store.swapAt(slot, store.count - 1)
            store.removeLast()
            if slot < store.count { slots[store[slot].row.id] = slot }
        case .invalidated:
            break
        }
    }

    /// Sorts every row again and lays the result out in sections.
    private func resort() {
        result = store.sorted { Entry.precedes($0, $1) }
        keys = result.map { Key(section: $0.row.section, id: $0.row.id) }
        layout = SectionLayout(result)
    }

    private func recordSectionChanges(from oldLayout: SectionLayout, into changes: inout ChangeSet<Row>) {
        for change in layout.names.difference(from: oldLayout.names) {
            switch change {
            case .remove(let offset, let name, _): changes.recordSectionDeletion(offset, name: name)
            case .insert(let offset, let name, _): changes.recordSectionInsertion(offset, name: name)
            }
        }
    }

    private func recordItemChanges(from oldKeys: [Key], in oldLayout: SectionLayout, into changes: inout ChangeSet<Row>)
    {
        for change in keys.difference(from: oldKeys).inferringMoves() {
            switch change {
            case .remove(let offset, let key, nil):
                changes.recordDeletion(at: oldLayout.indexPath(ofOffset: offset), id: key.id)
            case .remove(let offset, let key, let destination?):
                let target = layout.indexPath(ofOffset: destination)
                changes.recordMove(from: oldLayout.indexPath(ofOffset: offset), to: target, id: key.id)
            case .insert(let offset, let key, nil):
                changes.recordInsertion(at: layout.indexPath(ofOffset: offset), id: key.id)
            case .insert:
                break  // a move's destination, recorded with its removal
            }
        }
    }

    private func recordUpdates(of updatedIDs: Set<Int>, into changes: inout ChangeSet<Row>) {
        for id in updatedIDs {
            guard let slot = slots[id] else { continue }
            let offset = result.insertionIndex(of: store[slot])
            changes.recordUpdate(at: layout.indexPath(ofOffset: offset), id: id)
        }
    }
}
