import LiveResults
import Synchronization

/// Collects a ``TodoList``'s updates, in order, until they are taken: the controller's delegate,
/// and the sink of the repository's issues and the controller's diagnostics.
final class _UpdateLog: FetchedResultsControllerDelegate, Sendable {
    private let updates = Mutex<[TodoListUpdate]>([])
    private let authorRequests = Mutex(AuthorRequestCount())

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

    func controller(
        _ controller: FetchedResultsController<TodoItem>,
        didChangeContentWith changes: ChangeSet<TodoItem>,
        snapshot: FetchedResultsSnapshot<TodoItem>
    ) {
        record(.changed(changes))
    }
}
