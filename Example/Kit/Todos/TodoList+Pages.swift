import LiveResults

extension TodoList {
    /// Loads the next page of stored to-dos, if there is one, and adds its to-dos to the list.
    ///
    /// What the page changes in the ``display`` is also in ``takeUpdates()``, as every change is (once
    /// resumed, while the controller is paused). Its to-dos that the list already shows (written since
    /// the first page, say) change nothing.
    ///
    /// - Returns: The change set the page caused, or `nil` if every page was loaded.
    /// - Throws: ``TodoListError/pageUnavailable(_:)`` if the page could not be read; the list is left
    ///   as it was, and the same page can be loaded again.
    /// - Complexity: O(*k* log *n*) for a page of *k* to-dos and *n* shown, plus reading the page.
    @discardableResult
    public func loadMore() async throws(TodoListError) -> ChangeSet<TodoItem>? {
        guard hasMore else { return nil }
        do {
            return try await controller.loadNextPage()
        } catch {
            throw .pageUnavailable("\(error)")
        }
    }

    /// Whether ``loadMore()`` has a page to load: the last page loaded saw more stored ids after it.
    public var hasMore: Bool {
        controller.hasNextPage
    }

    /// The pages loaded: 1 after ``load()``, one more for each ``loadMore()`` that loaded one.
    public var pagesLoaded: Int {
        controller.pagination.pagesLoaded
    }
}
