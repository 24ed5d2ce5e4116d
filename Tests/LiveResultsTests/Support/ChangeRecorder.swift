import Foundation
import LiveResults

/// A delegate that records every callback, in order.
final class ChangeRecorder<Entity: FetchableEntity>: FetchedResultsControllerDelegate, Sendable {
    enum Call: Equatable {
        case willChange
        case section(SectionChange)
        case item(ItemChange<Entity>)
        case didChange(ChangeSet<Entity>)
    }

    private let recorded = Locked<[Call]>([])
    /// Runs inside `didChangeContent`, for re-entrancy tests.
    let onDidChange: (@Sendable (FetchedResultsController<Entity>, ChangeSet<Entity>) -> Void)?

    init(onDidChange: (@Sendable (FetchedResultsController<Entity>, ChangeSet<Entity>) -> Void)? = nil) {
        self.onDidChange = onDidChange
    }

    var calls: [Call] { recorded.withLock { $0 } }

    /// The change sets delivered through `didChangeContent`, in order.
    var changeSets: [ChangeSet<Entity>] {
        calls.compactMap { if case .didChange(let changes) = $0 { changes } else { nil } }
    }

    func controllerWillChangeContent(_ controller: FetchedResultsController<Entity>) {
        recorded.withLock { $0.append(.willChange) }
    }

    func controller(_ controller: FetchedResultsController<Entity>, didChange section: SectionChange) {
        recorded.withLock { $0.append(.section(section)) }
    }

    func controller(_ controller: FetchedResultsController<Entity>, didChange item: ItemChange<Entity>) {
        recorded.withLock { $0.append(.item(item)) }
    }

    func controller(
        _ controller: FetchedResultsController<Entity>,
        didChangeContentWith changes: ChangeSet<Entity>,
        snapshot: FetchedResultsSnapshot<Entity>
    ) {
        recorded.withLock { $0.append(.didChange(changes)) }
        onDidChange?(controller, changes)
    }
}
