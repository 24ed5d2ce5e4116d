import Foundation
import LiveResults
import Testing

@testable import LiveResultsTesting

/// A snapshot reduced to what the change-set contract talks about: section names and entities.
struct SnapshotModel<Entity: FetchableEntity>: Equatable, CustomStringConvertible {
    var sections: [(name: String, items: [Entity])]

    init(sections: [(name: String, items: [Entity])]) {
        self.sections = sections
    }

    init(_ snapshot: FetchedResultsSnapshot<Entity>) {
        sections = snapshot.sections.map { ($0.name, Array($0.objects)) }
    }

    static func == (lhs: Self, rhs: Self) -> Bool {
        lhs.sections.count == rhs.sections.count
            && zip(lhs.sections, rhs.sections).allSatisfy { $0.name == $1.name && $0.items == $1.items }
    }

    var ids: [[Entity.ID]] { sections.map { $0.items.map(\.id) } }
    var names: [String] { sections.map(\.name) }

    var description: String {
        sections.map { "\($0.name): \($0.items.map { "\($0.id)" }.joined(separator: ","))" }.joined(separator: " | ")
    }

    func indexPath(of id: Entity.ID) -> IndexPath? {
        for (section, entry) in sections.enumerated() {
            if let item = entry.items.firstIndex(where: { $0.id == id }) {
                return IndexPath(item: item, section: section)
            }
        }
        return nil
    }

    /// Applies a change set by the four steps of the contract, taking inserted and moved entities from
    /// `new` (the contract moves positions; content comes from the new snapshot).
    func applying(_ changes: ChangeSet<Entity>, takingContentFrom new: SnapshotModel) -> SnapshotModel? {
        var sections = self.sections.map { (name: $0.name, items: $0.items.map(Optional.some)) }
        // 1. remove deleted and moved-from items (old coordinates), highest first.
        let removals = (changes.deletedItems + changes.movedItems.map(\.from)).sorted(by: >)
        guard Set(removals).count == removals.count else { return nil }
        for path in removals {
            guard sections.indices.contains(path.section), sections[path.section].items.indices.contains(path.item)
            else { return nil }
            sections[path.section].items.remove(at: path.item)
        }
        // 2. remove deleted sections (must be empty now), highest first.
        for index in changes.deletedSections.sorted(by: >) {
            guard sections.indices.contains(index), sections[index].items.isEmpty else { return nil }
            sections.remove(at: index)
        }
        // 3. insert empty sections at new coordinates, ascending.
        for (index, name) in zip(changes.insertedSections, changes.insertedSectionNames).sorted(by: { $0.0 < $1.0 }) {
            guard index <= sections.count else { return nil }
            sections.insert((name, []), at: index)
        }
        // 4. insert inserted and moved-to items at new coordinates, ascending.
        let insertions = (changes.insertedItems + changes.movedItems.map(\.to)).sorted()
        for path in insertions {
            guard sections.indices.contains(path.section), path.item <= sections[path.section].items.count else {
                return nil
            }
            guard new.sections.indices.contains(path.section),
                new.sections[path.section].items.indices.contains(path.item)
            else { return nil }
            sections[path.section].items.insert(new.sections[path.section].items[path.item], at: path.item)
        }
        // Survivors take their new content; the contract reports content changes as updates.
        var result: [(name: String, items: [Entity])] = []
        for (section, entry) in sections.enumerated() {
            guard entry.items.allSatisfy({ $0 != nil }) else { return nil }
            let items = entry.items.map { $0! }
            let refreshed = items.enumerated().map { item, entity in
                new.sections.indices.contains(section) && new.sections[section].items.indices.contains(item)
                    ? new.sections[section].items[item] : entity
            }
            result.append((entry.name, refreshed))
        }
        return SnapshotModel(sections: result)
    }
}

/// Checks every clause of the change-set contract between two snapshots, with the one checker users have
/// (`LiveResultsTesting`'s `ChangeSetContract`).
///
/// `alsoUpdated` lists surviving entities reported as updated although their content is equal: those
/// whose associated values arrived or were dropped.
func expectContract<Entity: FetchableEntity>(
    _ changes: ChangeSet<Entity>,
    from old: SnapshotModel<Entity>,
    to new: SnapshotModel<Entity>,
    alsoUpdated: Set<Entity.ID> = [],
    sourceLocation: SourceLocation = #_sourceLocation
) {
    do {
        try ChangeSetContract.verify(
            changes, from: _ResultsModel(sections: old.sections), to: _ResultsModel(sections: new.sections),
            alsoUpdated: alsoUpdated)
    } catch {
        Issue.record("\(error)\n  \(changes)\n  from \(old)\n  to \(new)", sourceLocation: sourceLocation)
    }
}
