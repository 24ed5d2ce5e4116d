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
