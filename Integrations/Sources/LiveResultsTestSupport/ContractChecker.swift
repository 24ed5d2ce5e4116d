import Foundation
import LiveResults
import LiveResultsLockSupport

/// Follows a controller's change sets and checks the contract on each: the change set applied to the
/// previous snapshot gives the new one (sections, ids, and the entities the change set reports).
public final class ContractChecker<Entity: FetchableEntity>: Sendable {
    private struct State {
        var previous: [(name: String, items: [Entity])]
        var changeSets: [ChangeSet<Entity>] = []
        var violations: [String] = []
    }

    private let state: PthreadLock<State>
    private let subscription: PthreadLock<EventSubscription?> = PthreadLock(nil)

    /// Starts following `controller`'s change sets.
    public convenience init(_ controller: FetchedResultsController<Entity>) {
        self.init(observing: controller.observeChanges)
    }

    /// Starts following the change sets of anything observed as a controller is (`observeChanges`): a
    /// `RemoteResults` of `LiveResultsHTTP`, say.
    public init(
        observing observe: (@escaping @Sendable (ChangeSet<Entity>, FetchedResultsSnapshot<Entity>) -> Void) -> (
            snapshot: FetchedResultsSnapshot<Entity>, subscription: EventSubscription
        )
    ) {
        state = PthreadLock(State(previous: []))
        let (start, subscription) = observe { [weak self] changes, snapshot in
            self?.check(changes, snapshot)
        }
        state.withLock { $0.previous = Self.model(start) }
        self.subscription.withLock { $0 = subscription }
    }

    /// The change sets delivered so far.
    public var changeSets: [ChangeSet<Entity>] { state.withLock { $0.changeSets } }
    /// The entities of the last snapshot checked, in display order.
    public var latest: [Entity] { state.withLock { $0.previous.flatMap(\.items) } }
    /// What broke the contract, if anything.
    public var violations: [String] { state.withLock { $0.violations } }

    /// The sections and entities of `snapshot`, in display order.
    public static func model(_ snapshot: FetchedResultsSnapshot<Entity>) -> [(name: String, items: [Entity])] {
        snapshot.sections.map { ($0.name, Array($0.objects)) }
    }

    private func check(_ changes: ChangeSet<Entity>, _ snapshot: FetchedResultsSnapshot<Entity>) {
        let new = Self.model(snapshot)
        state.withLock { state in
            state.changeSets.append(changes)
            let applied = Self.apply(changes, to: state.previous, new: new)
            if let applied, Self.same(applied, new) {
                // The content of every survivor that was not reported updated must be unchanged.
            } else {
                state.violations.append(
                    "change set \(state.changeSets.count) does not turn the old snapshot into the new")
            }
            state.previous = new
        }
    }

    private static func same(_ lhs: [(name: String, items: [Entity])], _ rhs: [(name: String, items: [Entity])]) -> Bool
    {
        lhs.count == rhs.count && zip(lhs, rhs).allSatisfy { $0.name == $1.name && $0.items == $1.items }
    }

    /// The four steps of the contract; content of inserted, moved and updated items from `new`.
    private static func apply(
        _ changes: ChangeSet<Entity>, to old: [(name: String, items: [Entity])], new: [(name: String, items: [Entity])]
    ) -> [(name: String, items: [Entity])]? {
        var sections = old.map { (name: $0.name, items: $0.items.map { Optional($0) }) }
        for path in (changes.deletedItems + changes.movedItems.map(\.from)).sorted(by: >) {
            guard sections.indices.contains(path.section), sections[path.section].items.indices.contains(path.item)
            else { return nil }
            sections[path.section].items.remove(at: path.item)
        }
        for index in changes.deletedSections.sorted(by: >) {
            guard sections.indices.contains(index), sections[index].items.isEmpty else { return nil }
            sections.remove(at: index)
        }
        for index in changes.insertedSections.sorted() {
            guard index <= sections.count, new.indices.contains(index) else { return nil }
            sections.insert((new[index].name, []), at: index)
        }
        for path in (changes.insertedItems + changes.movedItems.map(\.to)).sorted() {
            guard sections.indices.contains(path.section), path.item <= sections[path.section].items.count,
                new.indices.contains(path.section), new[path.section].items.indices.contains(path.item)
            else { return nil }
            sections[path.section].items.insert(new[path.section].items[path.item], at: path.item)
        }
        for path in changes.updatedItems {
            guard sections.indices.contains(path.section), sections[path.section].items.indices.contains(path.item),
                new.indices.contains(path.section), new[path.section].items.indices.contains(path.item)
            else { return nil }
            sections[path.section].items[path.item] = new[path.section].items[path.item]
        }
        return sections.map { (name: $0.name, items: $0.items.compactMap { $0 }) }
    }
}
