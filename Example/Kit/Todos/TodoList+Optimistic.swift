import LiveResults

extension TodoList {
    /// Changes the stored to-do with this id optimistically: the list shows the change at once, then
    /// the store saves it, and if the write fails, the list goes back to what it showed before.
    ///
    /// ``edit(id:_:)`` writes first, and the list follows the store's event. Here a `Mutation` applies
    /// `.updated(item)` to the controller before the write, so ``takeUpdates()`` holds the change as
    /// ``TodoListUpdate/shownAtOnce(_:)``; when the write succeeds, the store's event brings the same
    /// version, which changes nothing more. When it fails, the update is rolled back, and
    /// ``TodoListUpdate/rolledBack(_:reason:)`` holds the change set that undid it.
    ///
    /// ```swift
    /// todos.failNextWrite()
    /// try await todos.editOptimistically(id: 2) { $0.title = "Fix the bike" }   // throws .storeFailed
    /// todos.takeUpdates()     // [.shownAtOnce(~0.0), .rolledBack(~0.0, reason: "simulated failure")]
    /// ```
    ///
    /// - Parameters:
    ///   - id: The to-do's id.
    ///   - change: Changes it; its id cannot change.
    /// - Returns: The to-do as saved.
    /// - Throws: ``TodoListError/unknownID(_:)`` or ``TodoListError/unreadable(id:_:)``, before anything
    ///   is shown; ``TodoListError/storeFailed(_:)`` once the edit is rolled back.
    /// - Complexity: O(log *n*) for *n* to-dos shown, plus the store's write.
    @discardableResult
    public func editOptimistically(id: Int, _ change: (inout TodoItem) -> Void) async throws(TodoListError)
        -> TodoItem
    {
        var item = try stored(id)
        change(&item)
        do {
            try await optimisticSave.run(item)
        } catch {
            // A rollback that changed nothing shown (or is held by a pause) delivered no change set.
            if case .rolledBack(let reason)? = log.label(nil) {
                log.record(.rolledBack(ChangeSet(), reason: reason))
            }
            throw error as? TodoListError ?? .storeFailed(.writeFailed(location: writes.location, reason: "\(error)"))
        }
        return item
    }

    /// Makes the next write to the store fail, as a full disk would: see ``SimulatedFailureStore``.
    public func failNextWrite() {
        writes.failNextWrite()
    }

    /// The mutation behind ``editOptimistically(id:_:)``: `.updated(item)` at once, then the save.
    ///
    /// The log labels the display's change sets of each step. `Mutation.run(_:)` applies the optimistic
    /// events right after asking for them, calls the operation next, and rolls back as soon as the
    /// operation throws: each label is set just before the change set it names.
    static func optimisticSave(
        controller: FetchedResultsController<TodoItem>, repository: EntityRepository<TodoItem>, log: _UpdateLog
    ) -> Mutation<TodoItem, TodoItem, Void> {
        Mutation(
            controller: controller,
            optimistic: { item in
                log.label(.shownAtOnce)
                return [.updated(item)]
            },
            operation: { item in
                // The optimistic events are applied: the store's event is recorded as it is.
                log.label(nil)
                do throws(TodoListError) {
                    try storing(in: repository) { try repository.save(item) }
                } catch {
                    log.label(.rolledBack(reason: reason(error)))
                    throw error
                }
            })
    }

    /// `simulated failure`: why a write failed, without the location every store error names.
    private static func reason(_ error: TodoListError) -> String {
        guard case .storeFailed(.writeFailed(_, let reason)) = error else { return "\(error)" }
        return reason
    }
}
