import Foundation
import LiveResults

/// The example's model: to-dos kept in a ``KeyValueStore``, shown live by a
/// `FetchedResultsController` sectioned by project and sorted by priority, then title.
///
/// Every change goes to the store through the ``repository``, which publishes it on its event bus;
/// the controller follows the bus, and ``display``, which shows the controller's sections with some
/// projects collapsed, reports the change set of what it displays to its delegate, which records it.
/// `EventBus` delivers synchronously and the controller calls its observers right away (the default
/// `.immediate` scheduler), so when a method returns, ``takeUpdates()`` holds its change set.
///
/// `controller.pause()` keeps the list as it is: writes still reach the store and the controller, but
/// listings show the to-dos as they were, and no change set is recorded until `controller.resume()`
/// delivers one that catches up with all of them. `display.collapse("Home")` shows a project as a
/// header only, now or when it appears, and records the change set of the to-dos it hides.
///
/// Each to-do's author comes through the ``authors`` association, from the same store: see
/// ``listing()``.
///
/// The controller loads the stored to-dos a page at a time, in id order: ``load()`` the first page,
/// ``loadMore()`` each next one. To-dos written through the ``repository`` join the list at once, as
/// live events do, whatever the pages loaded.
///
/// Given a ``resultsStore``, the list saves what it shows after every fetch and page there, and its
/// first fetch shows the to-dos saved by an earlier list (an earlier launch) at once while it reads
/// the store behind them: see ``load()``. ``editOptimistically(id:_:)`` shows an edit before the store
/// saves it, and rolls it back if the write fails; ``failNextWrite()`` makes the next one fail.
///
/// ```swift
/// let todos = TodoList(store: InMemoryKeyValueStore(), pageSize: 20)
/// try await todos.load()
/// let item = try todos.add(title: "Buy milk", project: "Home", priority: 2, authorID: "ana")
/// todos.takeUpdates()      // [.changed(+§0 +0.0)]
/// try await todos.controller.loadAssociatedValue(todos.authors, for: item)    // Author "ana", or nil
/// ```
public final class TodoList: Sendable {
    /// How many stored to-dos a page reads, unless the list is told otherwise.
    public static let defaultPageSize = 20

    /// The sort order inside a project: priority (1 first), then title.
    public static let sortDescriptors = [
        SortDescriptor(\TodoItem.priority), SortDescriptor(\TodoItem.title, comparator: .lexical),
    ]

    /// Where the to-dos are kept; it publishes every write.
    public let repository: EntityRepository<TodoItem>
    /// The live, sorted, sectioned list.
    public let controller: FetchedResultsController<TodoItem>
    /// What the list displays: the controller's sections, each project expanded until collapsed.
    /// Its change sets, in display coordinates, are the ones ``takeUpdates()`` returns.
    public let display: CollapsibleSections<TodoItem>
    /// Where the authors are kept, in the same store.
    public let authorRepository: EntityRepository<Author>
    /// Each to-do's author, read from ``authorRepository`` in batches and cached by the controller.
    public let authors: Association<TodoItem, Author>
    /// How many stored to-dos a page reads: readable or not, so a page can show fewer.
    public let pageSize: Int
    /// Where the list saves the to-dos it shows, to show them first the next time: see ``load()``.
    public let resultsStore: (any ResultsStore)?

    /// The store as the repositories see it: ``failNextWrite()`` makes its next write fail.
    let writes: SimulatedFailureStore
    /// Shows an edited to-do at once, saves it, and rolls it back if the save fails.
    let optimisticSave: Mutation<TodoItem, TodoItem, Void>
    /// Drops the controller's cached authors when sent: see ``forgetAuthors()``.
    let memoryPressure = MemoryPressureSignal()
    let log: _UpdateLog
    /// Cancels itself when the list is released.
    private let subscription: EventSubscription

    /// Creates a list over `store`. Call ``load()`` to fetch the first page.
    ///
    /// - Parameters:
    ///   - store: Where the to-dos are kept.
    ///   - pageSize: How many stored to-dos a page reads; more than 0.
    ///   - resultsStore: Where to save the to-dos shown, and to read those an earlier list saved; none
    ///     by default.
    public convenience init(
        store: any KeyValueStore, pageSize: Int = defaultPageSize, resultsStore: (any ResultsStore)? = nil
    ) {
        self.init(store: store, pageSize: pageSize, resultsStore: resultsStore) { repository, after in
            repository.fetchPage(after: after, limit: pageSize)
        }
    }

    /// Creates a list whose pages come from `readPage`, which is given the repository and the page's
    /// cursor: the store's pages, or, in tests, pages that fail. `now` dates the saved to-dos and
    /// decides whether they expired.
    init(
        store: any KeyValueStore,
        pageSize: Int,
        resultsStore: (any ResultsStore)? = nil,
        now: @escaping @Sendable () -> Date = Date.init,
        readPage: @escaping @Sendable (EntityRepository<TodoItem>, _ after: Int?) async throws -> Page<TodoItem, Int?>
    ) {
        precondition(pageSize > 0, "a page reads at least one to-do")
        let log = _UpdateLog()
        // Every write goes through the switch of `failNextWrite()`, so that a simulated failure is the store's.
        let store = SimulatedFailureStore(store)
        let repository = EntityRepository<TodoItem>(store: store, reportIssue: { log.record(.skipped($0)) })
        authorRepository = EntityRepository<Author>(store: store, reportIssue: { log.record(.skipped($0)) })
        authors = Self.authorsAssociation(reading: authorRepository, log: log)
        // Pages by the last stored id scanned, saved in `resultsStore` if there is one.
        let pages = Self.definition(
            pageRequest: { after in try await readPage(repository, after) }, associations: [authors],
            cache: resultsStore.map { Self.cachePolicy(saving: $0, pageSize: pageSize, now: now) })
        controller = FetchedResultsController(
            definition: pages,
            sortDescriptors: Self.sortDescriptors,
            sectionNameKeyPath: \TodoItem.project,
            memoryPressure: memoryPressure,
            diagnostics: { log.record(.diagnostic("\($0)")) }
        )
        // A terminal prints the whole list, so one request covers every to-do shown.
        controller.associatedFetchSize = 0
        // The log records what the list displays, in the coordinates the listings print.
        display = CollapsibleSections(controller)
        display.delegate = log
        subscription = controller.observe(repository.events)
        optimisticSave = Self.optimisticSave(controller: controller, repository: repository, log: log)
        self.repository = repository
        self.pageSize = pageSize
        self.resultsStore = resultsStore
        self.writes = store
        self.log = log
    }

    /// Fetches the first page of to-dos from the store; a refetch reloads as many pages as are loaded.
    ///
    /// With a ``resultsStore``, the first fetch first shows the to-dos an earlier list with this page
    /// size saved there, unless they are older than ``savedResultsLifetime``: ``takeUpdates()`` then
    /// holds ``TodoListUpdate/showingSaved(count:savedAt:)`` and, once the store is read,
    /// ``TodoListUpdate/refreshed(_:)`` with the difference; else ``TodoListUpdate/noSavedResults``.
    /// Every successful fetch, and every page loaded, saves what the list shows.
    ///
    /// - Throws: The page's error if the store could not be read; saved to-dos shown stay shown.
    /// - Complexity: O(*p* *n* log *n*) for *p* pages and *n* stored to-dos: each page lists the store's keys.
    public func load() async throws {
        let isFirstFetch = controller.resultsOrigin == .none
        do {
            try await controller.performFetch()
        } catch {
            _ = log.fetchEnded(succeeded: false)
            throw error
        }
        let showedSaved = log.fetchEnded(succeeded: true)
        if resultsStore != nil, isFirstFetch, !showedSaved { log.record(.noSavedResults) }
    }

    /// What happened since the last call, oldest first: the change sets of ``display``, skipped values,
    /// diagnostics. While the controller is paused, it delivers no change set: none is recorded.
    ///
    /// - Complexity: O(1).
    public func takeUpdates() -> [TodoListUpdate] {
        log.take()
    }

    /// Stores a new to-do under the next free id: one more than the highest stored id, readable or
    /// not, so an unreadable value is never overwritten.
    ///
    /// - Returns: The new to-do.
    /// - Throws: ``TodoListError/storeFailed(_:)``.
    @discardableResult
    public func add(title: String, project: String, priority: Int, authorID: String? = nil) throws(TodoListError)
        -> TodoItem
    {
        let item = TodoItem(id: nextID, title: title, project: project, priority: priority, authorID: authorID)
        try save(item)
        return item
    }

    /// Stores `count` new to-dos in `project` in one write, under the next free ids: `Task 9`,
    /// `Task 10`… with priorities 1, 2, 3, 1…
    ///
    /// They reach the list in one change set, as live inserts: shown whatever the pages loaded.
    ///
    /// - Parameters:
    ///   - count: How many; more than 0.
    ///   - project: Their project.
    /// - Returns: The new to-dos, in id order.
    /// - Throws: ``TodoListError/storeFailed(_:)``; then none is stored.
    /// - Complexity: O(*k* log *n*) for *k* to-dos and *n* shown, plus the store's one write.
    @discardableResult
    public func generate(count: Int, project: String) throws(TodoListError) -> [TodoItem] {
        precondition(count > 0, "generate at least one to-do")
        let first = nextID
        let items = (0..<count).map { offset in
            TodoItem(id: first + offset, title: "Task \(first + offset)", project: project, priority: offset % 3 + 1)
        }
        try storing { try repository.saveAll(items) }
        return items
    }

    /// The next free id: see ``add(title:project:priority:authorID:)``.
    private var nextID: Int {
        (repository.storedIDs().last ?? 0) + 1
    }

    /// Changes the stored to-do with this id.
    ///
    /// - Parameters:
    ///   - id: The to-do's id.
    ///   - change: Changes it; its id cannot change.
    /// - Returns: The to-do as saved.
    /// - Throws: ``TodoListError/unknownID(_:)``, ``TodoListError/unreadable(id:_:)`` or
    ///   ``TodoListError/storeFailed(_:)``.
    @discardableResult
    public func edit(id: Int, _ change: (inout TodoItem) -> Void) throws(TodoListError) -> TodoItem {
        var item = try stored(id)
        change(&item)
        try save(item)
        return item
    }

    /// Deletes the value stored under this id, readable or not.
    ///
    /// - Throws: ``TodoListError/unknownID(_:)`` or ``TodoListError/storeFailed(_:)``.
    public func delete(id: Int) throws(TodoListError) {
        let deleted = try storing { try repository.delete(id: id) }
        guard deleted else { throw .unknownID(id) }
    }

    /// The stored to-do with this id, read from the store.
    ///
    /// - Throws: ``TodoListError/unknownID(_:)`` or ``TodoListError/unreadable(id:_:)``.
    /// - Complexity: O(1), plus decoding.
    public func stored(_ id: Int) throws(TodoListError) -> TodoItem {
        let item: TodoItem?
        do {
            item = try repository.entity(withID: id)
        } catch {
            throw .unreadable(id: id, error)
        }
        guard let item else { throw .unknownID(id) }
        return item
    }

    private func save(_ item: TodoItem) throws(TodoListError) {
        try storing { try repository.save(item) }
    }

    /// Runs a write, turning a store error into ``TodoListError/storeFailed(_:)``.
    private func storing<Result>(_ write: () throws -> Result) throws(TodoListError) -> Result {
        try Self.storing(in: repository, write)
    }

    /// Runs a write to `repository`, turning a store error into ``TodoListError/storeFailed(_:)``.
    static func storing<Result>(in repository: EntityRepository<TodoItem>, _ write: () throws -> Result)
        throws(TodoListError) -> Result
    {
        do {
            return try write()
        } catch let error as KeyValueStoreError {
            throw .storeFailed(error)
        } catch {
            throw .storeFailed(.writeFailed(location: repository.store.location, reason: "\(error)"))
        }
    }
}
