import Foundation
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

    // MARK: Saved results

    /// The list's first fetch showed `count` to-dos from its results cache, saved at `savedAt`, at
    /// once, and reads the store behind them. It stands for the change set that showed them.
    case showingSaved(count: Int, savedAt: Date)
    /// The to-dos read from the store replaced the saved ones shown first: the display's change set
    /// between them, empty when they were the same.
    case refreshed(ChangeSet<TodoItem>)
    /// The list's first fetch had no saved to-dos to show first (none saved, or saved too long ago):
    /// it showed the store's.
    case noSavedResults

    // MARK: Optimistic edits

    /// An edit shown before its write: the display's change set of the edit.
    case shownAtOnce(ChangeSet<TodoItem>)
    /// The write of an edit shown at once failed for `reason`, and the edit was rolled back: the
    /// display's change set of the rollback, empty if the edit had changed nothing shown (or the list
    /// is paused, which holds both change sets back).
    case rolledBack(ChangeSet<TodoItem>, reason: String)
}
