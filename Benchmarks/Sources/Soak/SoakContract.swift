import Foundation
import LiveResults

/// Results as sections of entities: what an observer had, what it has now.
struct SoakModel: Equatable {
    var sections: [(name: String, items: [SoakItem])]

    init(sections: [(name: String, items: [SoakItem])]) {
        self.sections = sections
    }

    init(_ snapshot: FetchedResultsSnapshot<SoakItem>) {
        sections = snapshot.sections.map { ($0.name, Array($0.objects)) }
    }

    static func == (lhs: SoakModel, rhs: SoakModel) -> Bool {
        lhs.sections.count == rhs.sections.count
            && zip(lhs.sections, rhs.sections).allSatisfy { $0.name == $1.name && $0.items == $1.items }
    }

    var count: Int { sections.reduce(0) { $0 + $1.items.count } }

    func item(at path: IndexPath) -> SoakItem? {
        sections.indices.contains(path.section) && sections[path.section].items.indices.contains(path.item)
            ? sections[path.section].items[path.item] : nil
    }
}

/// Sections of ids: what a change set's structure says, without the entities' content.
struct SoakIDs: Equatable {
    var sections: [(name: String, ids: [Int])]

    init(_ model: SoakModel) {
        sections = model.sections.map { ($0.name, $0.items.map(\.id)) }
    }

    init(sections: [(name: String, ids: [Int])]) {
        self.sections = sections
    }

    static func == (lhs: SoakIDs, rhs: SoakIDs) -> Bool {
        lhs.sections.count == rhs.sections.count
            && zip(lhs.sections, rhs.sections).allSatisfy { $0.name == $1.name && $0.ids == $1.ids }
    }

    func id(at path: IndexPath) -> Int? {
        sections.indices.contains(path.section) && sections[path.section].ids.indices.contains(path.item)
            ? sections[path.section].ids[path.item] : nil
    }

    /// These sections after `changes`, by the four steps of the contract (the *ChangeSetContract* article), or why it
    /// cannot be applied.
    func applying(_ changes: ChangeSet<SoakItem>) -> Result<SoakIDs, SoakViolation> {
        var result = self
        for (path, id) in zip(changes.deletedItems, changes.deletedItemIDs) where self.id(at: path) != id {
            return .failure("deleted \(path) is \(self.id(at: path).map(String.init) ?? "nothing"), not \(id)")
        }
        for (move, id) in zip(changes.movedItems, changes.movedItemIDs) where self.id(at: move.from) != id {
            return .failure("moved from \(move.from) is not \(id)")
        }
        // 1. Items removed, highest first.
        for path in (changes.deletedItems + changes.movedItems.map(\.from)).sorted(by: >) {
            guard result.id(at: path) != nil else { return .failure("removes \(path) twice") }
            result.sections[path.section].ids.remove(at: path.item)
        }
        // 2. Deleted sections, empty now.
        for section in changes.deletedSections.sorted(by: >) {
            guard result.sections.indices.contains(section), result.sections[section].ids.isEmpty else {
                return .failure("deleted section \(section) is not there or not empty")
            }
            result.sections.remove(at: section)
        }
        // 3. Inserted sections, empty.
        for (section, name) in zip(changes.insertedSections, changes.insertedSectionNames) {
            guard section <= result.sections.count else { return .failure("inserted section \(section) past the end") }
            result.sections.insert((name, []), at: section)
        }
        // 4. Items inserted, lowest first.
        let insertions =
            Array(zip(changes.insertedItems, changes.insertedItemIDs))
            + zip(changes.movedItems.map(\.to), changes.movedItemIDs)
        for (path, id) in insertions.sorted(by: { $0.0 < $1.0 }) {
            guard result.sections.indices.contains(path.section), path.item <= result.sections[path.section].ids.count
            else { return .failure("inserts \(id) at \(path), past the end") }
            result.sections[path.section].ids.insert(id, at: path.item)
        }
        return .success(result)
    }
}

/// What the soak found wrong.
struct SoakViolation: Error, ExpressibleByStringInterpolation, CustomStringConvertible {
    var description: String

    init(stringLiteral value: String) {
        description = value
    }

    init(stringInterpolation: DefaultStringInterpolation) {
        description = String(stringInterpolation: stringInterpolation)
    }
}
