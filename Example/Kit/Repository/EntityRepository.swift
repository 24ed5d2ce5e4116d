import Foundation
import LiveResults

/// Keeps entities in a ``KeyValueStore`` as JSON under `Entity.keyPrefix + id`, and publishes an
/// ``EntityEvent`` on its event bus after every write.
///
/// A ``FetchedResultsController`` fetches with ``fetchAll()`` (or page by page with
/// ``fetchPage(after:limit:)``) and follows ``events``:
///
/// ```swift
/// let todos = EntityRepository<TodoItem>(store: store)
/// let controller = FetchedResultsController(
///     definition: FetchDefinition(request: { todos.fetchAll() }),
///     sortDescriptors: [SortDescriptor(\TodoItem.priority)]
/// )
/// try await controller.performFetch()
/// let subscription = controller.observe(todos.events)
/// try todos.save(TodoItem(id: 1, title: "Buy milk", project: "Home", priority: 2))   // the controller follows
/// ```
///
/// A stored value that cannot be read (corrupted, or written by an older version) is skipped and
/// reported as a ``StoredValueIssue``; it stays in the store, and the other entities are read.
public final class EntityRepository<Entity: StorableEntity>: Sendable {
    /// Where the entities are kept.
    public let store: any KeyValueStore
    /// Every write, as it happens: `inserted` or `updated` after ``save(_:)``, `deleted` after
    /// ``delete(id:)``, `invalidated` after ``deleteAll()``. Subscribers are called synchronously.
    public let events = EventBus<Entity>()

    private let reportIssue: @Sendable (StoredValueIssue) -> Void

    /// Creates a repository over `store`.
    ///
    /// - Parameters:
    ///   - store: Where the entities are kept.
    ///   - reportIssue: Receives every stored value ``fetchAll()`` skips.
    public init(store: any KeyValueStore, reportIssue: @escaping @Sendable (StoredValueIssue) -> Void = { _ in }) {
        self.store = store
        self.reportIssue = reportIssue
    }

    /// The key of the entity with this id: `Entity.keyPrefix + id`.
    public func key(for id: Entity.ID) -> String {
        Entity.keyPrefix + id.description
    }

    // MARK: Reading

    /// Every entity that can be read, ordered by id, and an issue for every stored value that cannot.
    ///
    /// - Complexity: O(*n* log *n*) for *n* stored values, plus decoding them.
    public func readAll() -> (entities: [Entity], issues: [StoredValueIssue]) {
        var entities: [Entity] = []
        var issues: [StoredValueIssue] = []
        for key in store.keys(withPrefix: Entity.keyPrefix) {
            do {
                entities.append(try read(key))
            } catch {
                issues.append(error)
            }
        }
        return (entities.sorted { $0.id < $1.id }, issues)
    }

    /// Every entity that can be read, ordered by id. Reports every value it skips.
    ///
    /// - Complexity: O(*n* log *n*) for *n* stored values, plus decoding them.
    public func fetchAll() -> [Entity] {
        let (entities, issues) = readAll()
        issues.forEach(reportIssue)
        return entities
    }

    /// The entity with this id, or `nil` if nothing is stored under its key.
    ///
    /// - Throws: ``StoredValueIssue`` if a value is stored there but cannot be read.
    /// - Complexity: O(1), plus decoding.
    public func entity(withID id: Entity.ID) throws(StoredValueIssue) -> Entity? {
        let key = key(for: id)
        guard store.hasValue(forKey: key) else { return nil }
        return try read(key)
    }

    /// The entities with these ids that can be read, in one call: an id with nothing stored under its
    /// key is left out, and so is a value that cannot be read, which is reported.
    ///
    /// - Complexity: O(*k*) for *k* ids, plus decoding.
    public func entities(withIDs ids: [Entity.ID]) -> [Entity.ID: Entity] {
        Dictionary(readable(ids).map { ($0.id, $0) }, uniquingKeysWith: { first, _ in first })
    }

    /// One page of the stored entities, in id order: the readable entities among the first `limit`
    /// stored ids after `cursor`, and as the next page's cursor the last id it scanned, if more ids
    /// follow. A value that cannot be read is reported and left out, so a page can hold fewer than
    /// `limit` entities (even none) and still have a next page.
    ///
    /// ```swift
    /// let definition = FetchDefinition<TodoItem>(firstPage: nil) { after in
    ///     todos.fetchPage(after: after, limit: 20)
    /// }
    /// ```
    ///
    /// A key that does not end with an id is in no page (``fetchAll()`` reports it).
    ///
    /// - Parameters:
    ///   - cursor: The last id the page before scanned, or `nil` for the first page.
    ///   - limit: How many stored ids a page scans; more than 0.
    /// - Complexity: O(*n* log *n*) for *n* stored values (the store keeps its keys in no order), plus
    ///   decoding the page's values.
    public func fetchPage(after cursor: Entity.ID?, limit: Int) -> Page<Entity, Entity.ID?> {
        precondition(limit > 0, "a page scans at least one id")
        let ids = storedIDs()
        let start = cursor.map { cursor in ids.firstIndex { $0 > cursor } ?? ids.endIndex } ?? ids.startIndex
        let scanned = ids[start...].prefix(limit)
        let entities = readable(scanned)
        guard let last = scanned.last, scanned.endIndex < ids.endIndex else { return Page(entities, next: nil) }
        // The cursor is itself optional: `.some(last)` names the id, where a bare `nil` would end the pages.
        return Page(entities, next: .some(last))
    }

    /// The entities with these ids that can be read, in the order of the ids; reports the others.
    private func readable(_ ids: some Sequence<Entity.ID>) -> [Entity] {
        var entities: [Entity] = []
        for id in ids {
            do {
                if let entity = try entity(withID: id) { entities.append(entity) }
            } catch {
                reportIssue(error)
            }
        }
        return entities
    }

    /// The ids of every stored value, readable or not, in ascending order.
    ///
    /// - Complexity: O(*n* log *n*) for *n* stored values.
    public func storedIDs() -> [Entity.ID] {
        store.keys(withPrefix: Entity.keyPrefix).compactMap(id(in:)).sorted()
    }

    private func id(in key: String) -> Entity.ID? {
        Entity.ID(String(key.dropFirst(Entity.keyPrefix.count)))
    }

    private func read(_ key: String) throws(StoredValueIssue) -> Entity {
        guard let id = id(in: key) else { throw StoredValueIssue(key: key, reason: .keyWithoutID) }
        let data: Data
        do {
            data = try store.data(forKey: key) ?? Data()
        } catch {
            let found = if case .notData(_, let found) = error as? KeyValueStoreError { found } else { "unreadable" }
            throw StoredValueIssue(key: key, reason: .notData(found: found))
        }
        let entity: Entity
        do {
            entity = try JSONDecoder().decode(Entity.self, from: data)
        } catch {
            throw StoredValueIssue(key: key, reason: .init(decodingError: error))
        }
        guard entity.id == id else { throw StoredValueIssue(key: key, reason: .idMismatch(valueID: "\(entity.id)")) }
        return entity
    }

    // MARK: Writing

    /// Stores `entity` under its key, then publishes `inserted` if nothing was stored there, else
    /// `updated`.
    ///
    /// - Throws: ``KeyValueStoreError`` if the store could not save it; nothing is published then.
    /// - Complexity: O(1), plus encoding and the store's write.
    public func save(_ entity: Entity) throws {
        try saveAll([entity])
    }

    /// Stores `entities` in one write of the store, then publishes their events in one batch: `inserted`
    /// for each whose key held nothing, else `updated`. A controller that follows ``events`` reports
    /// them in one change set.
    ///
    /// Of several entities with one id, the last is stored.
    ///
    /// - Throws: ``KeyValueStoreError`` if the store could not save them; nothing is published then.
    /// - Complexity: O(*k*) for *k* entities, plus encoding them and the store's one write.
    public func saveAll(_ entities: [Entity]) throws {
        guard !entities.isEmpty else { return }
        let encoder = Self.encoder
        var values: [String: Data] = [:]
        var events: [EntityEvent<Entity>] = []
        for entity in entities {
            let key = key(for: entity.id)
            values[key] = try encoder.encode(entity)
            events.append(store.hasValue(forKey: key) ? .updated(entity) : .inserted(entity))
        }
        try store.setValues(values)
        self.events.publish(events)
    }

    /// Removes the value stored under the key of `id`, readable or not, then publishes `deleted`.
    ///
    /// - Returns: `false` if nothing was stored there (nothing is published then).
    /// - Throws: ``KeyValueStoreError`` if the store could not save the removal.
    /// - Complexity: O(1), plus the store's write.
    @discardableResult
    public func delete(id: Entity.ID) throws -> Bool {
        let key = key(for: id)
        guard store.hasValue(forKey: key) else { return false }
        try store.removeValue(forKey: key)
        events.publish(.deleted(id))
        return true
    }

    /// Removes every value of this kind of entity, readable or not, then publishes `invalidated`.
    ///
    /// - Throws: ``KeyValueStoreError`` if the store could not save a removal.
    /// - Complexity: O(*n*) removals for *n* stored values.
    public func deleteAll() throws {
        for key in store.keys(withPrefix: Entity.keyPrefix) {
            try store.removeValue(forKey: key)
        }
        events.publish(.invalidated)
    }

    /// Sorted keys, so that the same entity is always stored as the same bytes.
    private static var encoder: JSONEncoder {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        return encoder
    }
}
