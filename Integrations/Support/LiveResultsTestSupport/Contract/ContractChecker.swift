import Foundation
import LiveResults
import NIOConcurrencyHelpers
import LiveResultsTesting

/// Follows a controller's change sets and checks each against the whole contract with `LiveResultsTesting`'s
/// `ChangeSetContract` (the one copy of the checker): the change set applied to the previous results gives the
/// new ones, its lists are ascending, its moves minimal, and `updatedItems` is exactly the survivors whose content
/// changed.
///
/// Unlike `LiveResultsTesting.ChangeRecorder`, which keeps every snapshot for `verifyChain()`, it checks each change
/// set as it arrives and keeps only the last results, so a test can follow tens of thousands of deliveries, and it
/// follows anything observed as a controller is (`observeChanges`), such as `LiveResultsHTTP`'s `RemoteResults`.
public final class ContractChecker<Entity: FetchableEntity>: Sendable {
    private struct State: Sendable {
        var previous: FetchedResultsSnapshot<Entity>?
        /// Deliveries that arrived before the results they start from were known.
        var early: [(ChangeSet<Entity>, FetchedResultsSnapshot<Entity>)] = []
        var changeSets: [ChangeSet<Entity>] = []
        var violations: [String] = []

        mutating func verify(_ changes: ChangeSet<Entity>, number: Int, to snapshot: FetchedResultsSnapshot<Entity>) {
            guard let previous else {
                early.append((changes, snapshot))
                return
            }
            do {
                try ChangeSetContract.verify(changes, from: previous, to: snapshot)
            } catch {
                violations.append("change set \(number): \(error)")
            }
            self.previous = snapshot
        }
    }

    private let state = NIOLockedValueBox(State())
    private let subscription: NIOLockedValueBox<EventSubscription?> = NIOLockedValueBox(nil)

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
        let (start, subscription) = observe { [weak self] changes, snapshot in
            self?.check(changes, snapshot)
        }
        state.withLockedValue { state in
            state.previous = start
            let early = state.early
            state.early = []
            for (offset, (changes, snapshot)) in early.enumerated() {
                state.verify(changes, number: offset + 1, to: snapshot)
            }
        }
        self.subscription.withLockedValue { $0 = subscription }
    }

    /// The change sets delivered so far.
    public var changeSets: [ChangeSet<Entity>] { state.withLockedValue { $0.changeSets } }
    /// The entities of the last results checked, in display order.
    public var latest: [Entity] {
        state.withLockedValue { ($0.early.last?.1 ?? $0.previous).map { Array($0.fetchedObjects) } ?? [] }
    }
    /// What broke the contract, if anything: the change set's number and the rule, with its index paths.
    public var violations: [String] { state.withLockedValue { $0.violations } }

    private func check(_ changes: ChangeSet<Entity>, _ snapshot: FetchedResultsSnapshot<Entity>) {
        state.withLockedValue { state in
            state.changeSets.append(changes)
            state.verify(changes, number: state.changeSets.count, to: snapshot)
        }
    }
}
