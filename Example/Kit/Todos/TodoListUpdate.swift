import LiveResults

/// Something a ``TodoList`` noticed since its updates were last taken.
public enum TodoListUpdate: Equatable, Sendable {
    /// The list's ``TodoList/display`` reported a change set, in display coordinates: what the controller
    /// changed, or a project collapsed or expanded.
    case changed(ChangeSet<TodoItem>)
    /// A fetch skipped a stored value it could not read.
    case skipped(StoredValueIssue)
    /// The controller reported a problem it survived (see `ControllerDiagnostic`).
    case diagnostic(String)
    /// The ``TodoList/authors`` association asked the store for these author ids, in one request.
    case authorsRequested([String])
}
