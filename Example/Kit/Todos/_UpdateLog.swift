import Foundation
import LiveResults
import Synchronization

/// Collects a ``TodoList``'s updates, in order, until they are taken: the delegate of its display,
/// and the sink of the repository's issues and the controller's diagnostics.
///
/// It records most change sets of the display as ``TodoListUpdate/changed(_:)``, and some as what
/// they are part of:
///
/// - the one that shows saved to-dos while the store is read behind them (the controller's
///   `resultsOrigin` is `.cache` and its state `.loading`), as ``TodoListUpdate/showingSaved(count:savedAt:)``,
///   and the next one from the store as ``TodoListUpdate/refreshed(_:)``;
/// - those of an optimistic edit, while the list labels them (see ``label(_:)``).
final class _UpdateLog: CollapsibleSectionsDelegate, Sendable {
    /// What the display's next change sets are part of, while a ``TodoList`` runs an optimistic edit.
    enum Label: Equatable, Sendable {
        /// The edit's events, applied before its write.
        case shownAtOnce
        /// The rollback of an edit whose write failed for this reason.
        case rolledBack(reason: String)
    }

    /// Where a fetch stands with saved to-dos.
    private enum Refresh {
        /// It showed none.
        case idle
        /// It shows saved to-dos and reads the store behind them.
        case underWay
        /// The store's to-dos replaced the saved ones.
        case done
    }

    private let updates = Mutex<[TodoListUpdate]>([])
    private let authorRequests = Mutex(AuthorRequestCount())
    /// The label of the display's next change sets, and whether a change set was recorded with it.
    private let currentLabel = Mutex<(label: Label, isUsed: Bool)?>(nil)
    private let refresh = Mutex(Refresh.idle)

    func record(_ update: TodoListUpdate) {
        if case .authorsRequested(let ids) = update {
            authorRequests.withLock { $0.count(ids) }
        }
        updates.withLock { $0.append(update) }
    }

    /// The author requests recorded so far, taken or not.
    var authorRequestCount: AuthorRequestCount {
        authorRequests.withLock { $0 }
    }

    /// The updates recorded since the last call, oldest first.
    func take() -> [TodoListUpdate] {
        updates.withLock { updates in
            defer { updates = [] }
            return updates
        }
    }

    // MARK: Labels

    /// Records the display's next change sets as part of `label`, or, given `nil`, as they are.
    ///
    /// - Returns: The label replaced, if no change set was recorded with it: the change set it waited
    ///   for did not come (it was empty, or held back by a pause).
    @discardableResult
    func label(_ label: Label?) -> Label? {
        currentLabel.withLock { current in
            defer { current = label.map { ($0, false) } }
            return current.flatMap { $0.isUsed ? nil : $0.label }
        }
    }

    /// The current label, marked as used.
    private func useLabel() -> Label? {
        currentLabel.withLock { current in
            current?.isUsed = true
            return current?.label
        }
    }

    // MARK: Refreshing saved to-dos

    /// Ends a fetch: if it showed saved to-dos and succeeded, but the store's to-dos changed nothing
    /// shown (so no change set came), records that the refresh changed nothing.
    ///
    /// - Returns: Whether the fetch showed saved to-dos.
    func fetchEnded(succeeded: Bool) -> Bool {
        let ended = refresh.withLock { refresh in
            defer { refresh = .idle }
            return refresh
        }
        if ended == .underWay && succeeded { record(.refreshed(ChangeSet())) }
        return ended != .idle
    }

    // MARK: CollapsibleSectionsDelegate

    func collapsibleSections(_ view: CollapsibleSections<TodoItem>, didChangeContentWith changes: ChangeSet<TodoItem>) {
        record(update(for: changes, shownBy: view.controller))
    }

    /// What a change set of the display is part of.
    private func update(for changes: ChangeSet<TodoItem>, shownBy controller: FetchedResultsController<TodoItem>)
        -> TodoListUpdate
    {
        switch useLabel() {
        case .shownAtOnce: return .shownAtOnce(changes)
        case .rolledBack(let reason): return .rolledBack(changes, reason: reason)
        case nil: break
        }
        // The controller sets where its results come from, and its state, before it delivers their change set.
        let origin = controller.resultsOrigin
        let saved: (count: Int, savedAt: Date)? =
            if case .cache(let savedAt) = origin, controller.state.isLoading {
                (controller.snapshot.count, savedAt)
            } else {
                nil
            }
        return refresh.withLock { refresh in
            switch refresh {
            case .idle:
                guard let saved else { return .changed(changes) }
                refresh = .underWay
                return .showingSaved(count: saved.count, savedAt: saved.savedAt)
            case .underWay where origin == .request:
                refresh = .done
                return .refreshed(changes)
            case .underWay, .done:
                return .changed(changes)
            }
        }
    }
}
