import Foundation
import LiveResults

/// The example's model: to-dos kept in a ``KeyValueStore``, shown live by a
/// `FetchedResultsController` sectioned by project and sorted by priority, then title.
///
/// Every change goes to the store through the ``repository``, which publishes it on its event bus;
/// the controller follows the bus and reports a change set to its delegate, which records it.
/// `EventBus` delivers synchronously and the controller calls its delegate right away (the default
/// `.immediate` scheduler), so when a method returns, ``takeUpdates()`` holds its change set.
///
/// Each to-do's author comes through the ``authors`` association, from the same store: see
/// ``listing()``.
///
/// ```swift
/// let todos = TodoList(store: InMemoryKeyValueStore())
/// try await todos.load()
/// let item = try todos.add(title: "Buy milk", project: "Home", priority: 2, authorID: "ana")
/// todos.takeUpdates()      // [.changed(+§0 +0.0)]
/// try await todos.controller.loadAssociatedValue(todos.authors, for: item)    // Author "ana", or nil
/// ```
public final class TodoList: Sendable {
    /// The sort order inside a project: priority (1 first), then title.
    public static let sortDescriptors = [
        SortDescriptor(\TodoItem.priority), SortDescriptor(\TodoItem.title, comparator: .lexical),
    ]

    /// Where the to-dos are kept; it publishes every write.
    public let repository: EntityRepository<TodoItem>
    /// The live, sorted, sectioned list.
    public let controller: FetchedResultsController<TodoItem>
    /// Where the authors are kept, in the same store.
    public let authorRepository: EntityRepository<Author>
    /// Each to-do's author, read from ``authorRepository`` in batches and cached by the controller.
    public let authors: Association<TodoItem, Author>

    /// Drops the controller's cached authors when sent: see ``forgetAuthors()``.
    let memoryPressure = MemoryPressureSignal()
    let log: _UpdateLog
    /// Cancels itself when the list is released.
    private let subscription: EventSubscription

    /// Creates a list over `store`. Call ``load()`` to fetch.
    ///
    /// - Parameter store: Where the to-dos are kept.
    public init(store: any KeyValueStore) {
        let log = _UpdateLog()
        let repository = EntityRepository<TodoItem>(store: store, reportIssue: { log.record(.skipped($0)) })
        authorRepository = EntityRepository<Author>(store: store, reportIssue: { log.record(.skipped($0)) })
        authors = Self.authorsAssociation(reading: authorRepository, log: log)
        controller = FetchedResultsController(
            definition: FetchDefinition(request: { repository.fetchAll() }, associations: [authors]),
            sortDescriptors: Self.sortDescriptors,
            sectionNameKeyPath: \TodoItem.project,
            memoryPressure: memoryPressure,
            diagnostics: { log.record(.diagnostic("\($0)")) }
        )
        // A terminal prints the whole list, so one request covers every to-do shown.
        controller.associatedFetchSize = 0
        controller.delegate = log
        subscription = controller.observe(repository.events)
        self.repository = repository
        self.log = log
    }

    /// Fetches every readable to-do from the store: the first fetch, or a refetch.
    ///
    /// - Complexity: O(*n* log *n*) for *n* to-dos.
    public func load() async throws {
        try await controller.performFetch()
    }

    /// What happened since the last call, oldest first: change sets, skipped values, diagnostics.
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
        let id = (repository.storedIDs().last ?? 0) + 1
        let item = TodoItem(id: id, title: title, project: project, priority: priority, authorID: authorID)
        try save(item)
        return item
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
        do {
            return try write()
        } catch let error as KeyValueStoreError {
            throw .storeFailed(error)
        } catch {
            throw .storeFailed(.writeFailed(location: repository.store.location, reason: "\(error)"))
        }
    }
}
