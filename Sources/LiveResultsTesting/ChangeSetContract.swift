import Foundation
import LiveResults

/// The rules every ``LiveResults/ChangeSet`` keeps, checked: for an app's test that its table view applies
/// change sets correctly, or a service's test of its own event source.
///
/// ```swift
/// import LiveResultsTesting
///
/// let before = controller.snapshot
/// let changes = controller.apply(.inserted(post))
/// try ChangeSetContract.verify(changes, from: before, to: controller.snapshot)
/// ```
///
/// The rules, as the library's *Change-set contract* article states them:
/// - every list is ascending and without repeats (``Violation/Rule/ascending``), each with its parallel list of
///   ids or names (``Violation/Rule/identities``);
/// - removing `deletedItems` and every move's `from` (old coordinates), then `deletedSections`, then inserting
///   `insertedSections` and the items at `insertedItems` and every move's `to` (new coordinates) turns the old
///   results into the new ones (``Violation/Rule/steps``): deletes and inserts are exactly the entities that
///   left and arrived;
/// - moves are minimal: only survivors that changed section or whose order relative to the other survivors
///   changed move, and no more of them than necessary (``Violation/Rule/minimalMoves``);
/// - `updatedItems` lists exactly the survivors whose content changed (``Violation/Rule/updates``).
public enum ChangeSetContract {
    /// A rule a change set broke, with the index paths involved.
    public struct Violation: Error, Sendable, Equatable, CustomStringConvertible {
        /// The rules of the contract.
        public enum Rule: String, Sendable, Equatable, CaseIterable {
            /// A list is not ascending, or names an index path or section twice.
            case ascending
            /// A parallel list of ids or section names does not match its positions.
            case identities
            /// The steps do not turn the old results into the new ones: a position out of range, a deleted section
            /// that is not empty, or a different result.
            case steps
            /// More moves than the minimum.
            case minimalMoves
            /// `updatedItems` is not exactly the surviving entities whose content changed.
            case updates
        }

        /// The rule broken.
        public let rule: Rule
        /// The index paths involved, where the rule names some.
        public let indexPaths: [IndexPath]
        /// What is wrong, in a sentence.
        public let message: String

        /// Creates a violation of `rule`.
        public init(_ rule: Rule, _ message: String, indexPaths: [IndexPath] = []) {
            self.rule = rule
            self.message = message
            self.indexPaths = indexPaths
        }

        /// The rule and what is wrong.
        public var description: String {
            let paths =
                indexPaths.isEmpty
                ? "" : " at " + indexPaths.map { "\(Array($0))" }.joined(separator: ", ")
            return "\(rule.rawValue): \(message)\(paths)"
        }
    }

    /// Checks that `changes` turns `old` into `new` under every rule of the contract.
    ///
    /// - Parameters:
    ///   - changes: The change set to check.
    ///   - old: The results before it.
    ///   - new: The results after it.
    ///   - alsoUpdated: Survivors that may be listed as updated although their content is equal (an entity whose
    ///     associated values arrived, say).
    /// The rules are checked in this order, and the first one broken is reported: positions (a negative section, an
    /// index path that is not `[section, item]`: ``Violation/Rule/steps``), ``Violation/Rule/ascending``,
    /// ``Violation/Rule/identities``, ``Violation/Rule/steps``, ``Violation/Rule/updates``, then
    /// ``Violation/Rule/minimalMoves``. So an index path past the end of its section, with its id, is reported as
    /// `identities` (no entity is there), before the steps are applied.
    ///
    /// - Throws: A ``Violation`` naming the first rule broken.
    /// - Complexity: O(*n* log *n*) for *n* entities in the two results.
    public static func verify<Entity: FetchableEntity>(
        _ changes: ChangeSet<Entity>, from old: FetchedResultsSnapshot<Entity>, to new: FetchedResultsSnapshot<Entity>,
        alsoUpdated: Set<Entity.ID> = []
    ) throws(Violation) {
        try verify(changes, from: _ResultsModel(old), to: _ResultsModel(new), alsoUpdated: alsoUpdated)
    }

    /// Checks `changes` between two results reduced to their sections and entities.
    static func verify<Entity: FetchableEntity>(
        _ changes: ChangeSet<Entity>, from before: _ResultsModel<Entity>, to after: _ResultsModel<Entity>,
        alsoUpdated: Set<Entity.ID>
    ) throws(Violation) {
        try verifyPositions(changes)
        try verifyAscending(changes)
        try verifyIdentities(changes, before, after)
        try verifySteps(changes, before, after)
        try verifyUpdates(changes, before, after, alsoUpdated: alsoUpdated)
        try verifyMinimalMoves(changes, before, after)
    }

    /// Checks that sections are non-negative and index paths non-negative `[section, item]` pairs, which the
    /// other rules read: a change set made by hand can hold anything.
    static func verifyPositions<Entity>(_ changes: ChangeSet<Entity>) throws(Violation) {
        for section in changes.deletedSections + changes.insertedSections + changes.updatedSections where section < 0 {
            throw Violation(.steps, "section \(section) is not a position")
        }
        let paths =
            changes.deletedItems + changes.insertedItems + changes.updatedItems
            + changes.movedItems.flatMap { [$0.from, $0.to] }
        for path in paths where path.count != 2 || path[0] < 0 || path[1] < 0 {
            throw Violation(.steps, "\(Array(path)) is not a position [section, item]", indexPaths: [path])
        }
    }

    static func verifyAscending<Entity>(_ changes: ChangeSet<Entity>) throws(Violation) {
        func check<Element: Comparable>(_ list: [Element], _ name: String, _ paths: (Int) -> [IndexPath])
            throws(Violation)
        {
            for index in list.indices.dropFirst() where !(list[index - 1] < list[index]) {
                throw Violation(.ascending, "\(name) is not ascending and without repeats", indexPaths: paths(index))
            }
        }
        try check(changes.deletedSections, "deletedSections") { _ in [] }
        try check(changes.insertedSections, "insertedSections") { _ in [] }
        try check(changes.updatedSections, "updatedSections") { _ in [] }
        try check(changes.deletedItems, "deletedItems") { [changes.deletedItems[$0 - 1], changes.deletedItems[$0]] }
        try check(changes.insertedItems, "insertedItems") {
            [changes.insertedItems[$0 - 1], changes.insertedItems[$0]]
        }
        try check(changes.updatedItems, "updatedItems") { [changes.updatedItems[$0 - 1], changes.updatedItems[$0]] }
        try check(changes.movedItems.map(\.to), "movedItems (by destination)") {
            [changes.movedItems[$0 - 1].to, changes.movedItems[$0].to]
        }
        let froms = changes.movedItems.map(\.from).sorted()
        for index in froms.indices.dropFirst() where froms[index - 1] == froms[index] {
            throw Violation(.ascending, "two moves start at the same index path", indexPaths: [froms[index]])
        }
    }

    static func verifyIdentities<Entity>(
        _ changes: ChangeSet<Entity>, _ old: _ResultsModel<Entity>, _ new: _ResultsModel<Entity>
    ) throws(Violation) {
        func check(_ paths: [IndexPath], _ ids: [Entity.ID], in model: _ResultsModel<Entity>, _ name: String)
            throws(Violation)
        {
            guard paths.count == ids.count else {
                throw Violation(.identities, "\(name) has \(paths.count) index paths and \(ids.count) ids")
            }
            for (path, id) in zip(paths, ids) where model.id(at: path) != id {
                throw Violation(
                    .identities, "\(name) names id \(id), which is not at its index path", indexPaths: [path])
            }
        }
        try check(changes.deletedItems, changes.deletedItemIDs, in: old, "deletedItems")
        try check(changes.insertedItems, changes.insertedItemIDs, in: new, "insertedItems")
        try check(changes.updatedItems, changes.updatedItemIDs, in: new, "updatedItems")
        try check(changes.movedItems.map(\.from), changes.movedItemIDs, in: old, "movedItems (from)")
        try check(changes.movedItems.map(\.to), changes.movedItemIDs, in: new, "movedItems (to)")
        func checkNames(_ sections: [Int], _ names: [String], in model: _ResultsModel<Entity>, _ name: String)
            throws(Violation)
        {
            guard sections.count == names.count,
                zip(sections, names).allSatisfy({ model.names.indices.contains($0) && model.names[$0] == $1 })
            else { throw Violation(.identities, "\(name) and their names do not match the results") }
        }
        try checkNames(changes.deletedSections, changes.deletedSectionNames, in: old, "deletedSections")
        try checkNames(changes.insertedSections, changes.insertedSectionNames, in: new, "insertedSections")
    }

    static func verifySteps<Entity>(
        _ changes: ChangeSet<Entity>, _ old: _ResultsModel<Entity>, _ new: _ResultsModel<Entity>
    ) throws(Violation) {
        var sections = old.sections.map { (name: $0.name, ids: $0.items.map { Optional($0.id) }) }
        for path in (changes.deletedItems + changes.movedItems.map(\.from)).sorted(by: >) {
            guard sections.indices.contains(path.section), sections[path.section].ids.indices.contains(path.item) else {
                throw Violation(.steps, "a removed index path is not in the old results", indexPaths: [path])
            }
            sections[path.section].ids.remove(at: path.item)
        }
        for index in changes.deletedSections.sorted(by: >) {
            guard sections.indices.contains(index), sections[index].ids.isEmpty else {
                throw Violation(.steps, "deleted section \(index) is not empty once its items are removed")
            }
            sections.remove(at: index)
        }
        for (index, name) in zip(changes.insertedSections, changes.insertedSectionNames) {
            guard index <= sections.count else {
                throw Violation(.steps, "inserted section \(index) is past the end")
            }
            sections.insert((name, []), at: index)
        }
        let inserted = (changes.insertedItems + changes.movedItems.map(\.to)).sorted()
        for path in inserted {
            guard sections.indices.contains(path.section), path.item <= sections[path.section].ids.count else {
                throw Violation(.steps, "an inserted index path is past the end of its section", indexPaths: [path])
            }
            sections[path.section].ids.insert(new.id(at: path), at: path.item)
        }
        guard sections.map(\.name) == new.names else {
            throw Violation(.steps, "the steps give the sections \(sections.map(\.name)), not \(new.names)")
        }
        for (index, section) in sections.enumerated() where section.ids != new.sections[index].items.map({ $0.id }) {
            throw Violation(
                .steps,
                "the steps do not give section \(index) (\(section.name)) of the new results: an entity that "
                    + "left or arrived is not listed, or one is listed that did not")
        }
    }

    static func verifyUpdates<Entity>(
        _ changes: ChangeSet<Entity>, _ old: _ResultsModel<Entity>, _ new: _ResultsModel<Entity>,
        alsoUpdated: Set<Entity.ID>
    ) throws(Violation) {
        let listed = Set(changes.updatedItemIDs)
        for (path, entity) in new.entities {
            guard let before = old.entity(withID: entity.id) else {
                if listed.contains(entity.id) {
                    throw Violation(.updates, "an inserted entity is listed as updated", indexPaths: [path])
                }
                continue
            }
            let changed = before != entity
            if changed && !listed.contains(entity.id) {
                throw Violation(.updates, "a surviving entity whose content changed is not listed", indexPaths: [path])
            }
            if !changed && listed.contains(entity.id) && !alsoUpdated.contains(entity.id) {
                throw Violation(.updates, "an entity whose content did not change is listed", indexPaths: [path])
            }
        }
    }

    static func verifyMinimalMoves<Entity>(
        _ changes: ChangeSet<Entity>, _ old: _ResultsModel<Entity>, _ new: _ResultsModel<Entity>
    ) throws(Violation) {
        var survivors: [String: [(old: Int, new: Int)]] = [:]
        var crossSection = 0
        for section in new.sections {
            for (item, entity) in section.items.enumerated() {
                guard let place = old.place(ofID: entity.id) else { continue }
                if old.names[place.section] != section.name {
                    crossSection += 1
                } else {
                    survivors[section.name, default: []].append((place.item, item))
                }
            }
        }
        let minimum =
            crossSection
            + survivors.values.reduce(0) { total, pairs in
                total + pairs.count - longestIncreasingRun(pairs.sorted { $0.old < $1.old }.map(\.new))
            }
        guard changes.movedItems.count <= minimum else {
            throw Violation(
                .minimalMoves, "\(changes.movedItems.count) moves where \(minimum) suffice",
                indexPaths: changes.movedItems.map(\.to))
        }
    }

    /// The length of the longest strictly increasing subsequence, by patience sorting.
    static func longestIncreasingRun(_ values: [Int]) -> Int {
        var tails: [Int] = []
        for value in values {
            var (low, high) = (0, tails.count)
            while low < high {
                let middle = (low + high) / 2
                if tails[middle] < value { low = middle + 1 } else { high = middle }
            }
            if low == tails.count { tails.append(value) } else { tails[low] = value }
        }
        return tails.count
    }
}
