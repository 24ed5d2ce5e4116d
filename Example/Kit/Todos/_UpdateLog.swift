import LiveResults
import Synchronization

/// Collects a ``TodoList``'s updates, in order, until they are taken: the delegate of its display,
/// and the sink of the repository's issues and the controller's diagnostics.
final class _UpdateLog: CollapsibleSectionsDelegate, Sendable {
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

    func collapsibleSections(_ view: CollapsibleSections<TodoItem>, didChangeContentWith changes: ChangeSet<TodoItem>) {
        record(.changed(changes))
    }
}
