import Foundation
import LiveResults
import LiveResultsTesting
import Synchronization

/// An observer that checks each change set it receives against the snapshot it had before with
/// `LiveResultsTesting`'s contract checker (the *ChangeSetContract* article), and keeps the first violation.
class SoakObserver: @unchecked Sendable {
    /// What it has: the results after its last change set, its first violation, how many it checked.
    let state: Mutex<(snapshot: FetchedResultsSnapshot<SoakItem>, violation: SoakViolation?, deliveries: Int)>
    let name: String

    init(name: String, start: FetchedResultsSnapshot<SoakItem>) {
        self.name = name
        state = Mutex((start, nil, 0))
    }

    func receive(_ changes: ChangeSet<SoakItem>, _ snapshot: FetchedResultsSnapshot<SoakItem>) {
        state.withLock { state in
            if state.violation == nil {
                do {
                    try ChangeSetContract.verify(changes, from: state.snapshot, to: snapshot)
                } catch {
                    state.violation = "\(name), delivery \(state.deliveries + 1): \(error)"
                }
            }
            state.snapshot = snapshot
            state.deliveries += 1
        }
    }

    var violation: SoakViolation? { state.withLock { $0.violation } }
    var deliveries: Int { state.withLock { $0.deliveries } }
    var ids: SoakIDs { state.withLock { SoakIDs(SoakModel($0.snapshot)) } }
}

/// A handler of `observeChanges`.
final class SoakHandler: SoakObserver, @unchecked Sendable {
    private var subscription: EventSubscription?

    init(_ controller: FetchedResultsController<SoakItem>) {
        let box = Mutex<SoakObserver?>(nil)
        let (start, subscription) = controller.observeChanges { changes, snapshot in
            box.withLock { $0 }?.receive(changes, snapshot)
        }
        super.init(name: "observeChanges handler", start: start)
        self.subscription = subscription
        box.withLock { $0 = self }
    }

    func cancel() { subscription?.cancel() }
}

/// A delegate with per-item callbacks, which must come between `willChange` and `didChange` and match
/// the change set's count.
final class SoakDelegate: SoakObserver, FetchedResultsControllerDelegate, @unchecked Sendable {
    private let callbacks = Mutex<(open: Bool, sections: Int, items: Int)>((false, 0, 0))

    init(start: FetchedResultsSnapshot<SoakItem>) {
        super.init(name: "delegate", start: start)
    }

    func controllerWillChangeContent(_ controller: FetchedResultsController<SoakItem>) {
        callbacks.withLock { $0 = (true, 0, 0) }
    }

    func controller(_ controller: FetchedResultsController<SoakItem>, didChange section: SectionChange) {
        callbacks.withLock { $0.sections += 1 }
    }

    func controller(_ controller: FetchedResultsController<SoakItem>, didChange item: ItemChange<SoakItem>) {
        callbacks.withLock { $0.items += 1 }
    }

    func controller(
        _ controller: FetchedResultsController<SoakItem>, didChangeContentWith changes: ChangeSet<SoakItem>,
        snapshot: FetchedResultsSnapshot<SoakItem>
    ) {
        let (open, sections, items) = callbacks.withLock { state in
            defer { state.open = false }
            return state
        }
        let expected = (
            changes.deletedSections.count + changes.insertedSections.count + changes.updatedSections.count,
            changes.deletedItems.count + changes.insertedItems.count + changes.movedItems.count
                + changes.updatedItems.count
        )
        if !open || (sections, items) != expected {
            state.withLock { state in
                if state.violation == nil {
                    state.violation = "delegate: \(sections) section and \(items) item callbacks for \(changes)"
                }
            }
        }
        receive(changes, snapshot)
    }
}

/// A `changes` sequence read by a task, which follows the structure of the results from the ids the
/// change sets carry.
final class SoakStream: @unchecked Sendable {
    private let state: Mutex<(ids: SoakIDs, violation: SoakViolation?, deliveries: Int)>
    private var task: Task<Void, Never>?

    init(_ controller: FetchedResultsController<SoakItem>) {
        let start = SoakIDs(SoakModel(controller.snapshot))
        let stream = controller.changes
        state = Mutex((start, nil, 0))
        task = Task { [weak self] in
            for await changes in stream { self?.receive(changes) }
        }
    }

    private func receive(_ changes: ChangeSet<SoakItem>) {
        state.withLock { state in
            state.deliveries += 1
            switch state.ids.applying(changes) {
            case .success(let ids): state.ids = ids
            case .failure(let violation):
                if state.violation == nil {
                    state.violation = "changes sequence, delivery \(state.deliveries): \(violation)"
                }
            }
        }
    }

    func cancel() { task?.cancel() }

    var violation: SoakViolation? { state.withLock { $0.violation } }
    var ids: SoakIDs { state.withLock { $0.ids } }
    var deliveries: Int { state.withLock { $0.deliveries } }
}

/// A collapsible view with a delegate, following its display from the change sets it delivers.
final class SoakView: CollapsibleSectionsDelegate, @unchecked Sendable {
    let view: CollapsibleSections<SoakItem>
    private let state: Mutex<(ids: SoakIDs, violation: SoakViolation?, deliveries: Int)>

    init(_ controller: FetchedResultsController<SoakItem>, seed: Int) {
        view = CollapsibleSections(
            controller,
            initiallyCollapsed: { ($0.utf8.reduce(seed) { $0 &+ Int($1) }) & 3 == 0 },
            limit: { $0.hasSuffix("1") ? SectionLimit(maximum: 4, whenExceeding: 2) : nil })
        state = Mutex((SoakIDs(sections: []), nil, 0))
        state.withLock { $0.ids = Self.display(of: view) }
        view.delegate = self
    }

    static func display(of view: CollapsibleSections<SoakItem>) -> SoakIDs {
        SoakIDs(sections: view.sections.map { ($0.name, $0.objects.map(\.id)) })
    }

    func collapsibleSections(_ view: CollapsibleSections<SoakItem>, didChangeContentWith changes: ChangeSet<SoakItem>) {
        state.withLock { state in
            state.deliveries += 1
            guard changes.updatedSections == changes.updatedSections.sorted() else {
                if state.violation == nil { state.violation = "collapsible view: updated sections not ascending" }
                return
            }
            switch state.ids.applying(changes) {
            case .success(let ids): state.ids = ids
            case .failure(let violation):
                if state.violation == nil {
                    state.violation = "collapsible view, delivery \(state.deliveries): \(violation)"
                }
            }
        }
    }

    var violation: SoakViolation? { state.withLock { $0.violation } }
    var ids: SoakIDs { state.withLock { $0.ids } }
    var deliveries: Int { state.withLock { $0.deliveries } }
}
