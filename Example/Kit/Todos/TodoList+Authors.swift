import LiveResults

extension TodoList {
    /// The association of each to-do with its author: its key is the optional `authorID`, and one
    /// request reads a batch of authors from the store. A to-do without `authorID` is never requested;
    /// an id with no stored author is cached as no author.
    static func authorsAssociation(reading authors: EntityRepository<Author>, log: _UpdateLog)
        -> Association<TodoItem, Author>
    {
        Association(key: \TodoItem.authorID) { (ids: [String]) -> [String: Author] in
            log.record(.authorsRequested(ids.sorted()))
            return authors.entities(withIDs: ids)
        }
    }

    /// The list now, as displayed, with the author of each to-do, and what happened since the last
    /// listing. While the controller is paused, the list is the one of the pause.
    ///
    /// Waits for the authors that are not cached: the first wait starts one request for every shown
    /// to-do that needs one (``associatedFetchSize`` is 0), and the others join it. When it arrives,
    /// the controller reports those to-dos as updated, in ``TodoListing/authorUpdates``.
    ///
    /// - Throws: ``TodoListError/authorsUnavailable(_:)`` if the authors cannot be read.
    public func listing() async throws(TodoListError) -> TodoListing {
        let updates = takeUpdates()
        let (isPaused, snapshot, sections) = (controller.isPaused, controller.snapshot, display.sections)
        var authors: [TodoItem.ID: Author] = [:]
        do {
            for item in snapshot.fetchedObjects where item.authorID != nil {
                authors[item.id] = try await controller.loadAssociatedValue(self.authors, for: item)
            }
        } catch {
            throw .authorsUnavailable("\(error)")
        }
        return TodoListing(
            updates: updates, authorUpdates: takeUpdates(), snapshot: snapshot, sections: sections,
            isPaused: isPaused, authors: authors)
    }

    /// Drops every cached author, so that the next ``listing()`` reads the shown to-dos' authors from
    /// the store again, in one request.
    ///
    /// A refetch keeps cached associated values, and changing an author changes no to-do's key: the
    /// controller drops them on a memory-pressure signal, which the list sends itself here.
    public func forgetAuthors() {
        memoryPressure.send()
    }

    /// How many requests the ``authors`` association made so far, and for how many author ids.
    public var authorRequestCount: AuthorRequestCount {
        log.authorRequestCount
    }
}
