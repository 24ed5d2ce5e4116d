import Foundation
import LiveResults
import LiveResultsExampleKit
import Synchronization
import Testing

@Suite("Entity repository")
struct EntityRepositoryTests {
    @Test("Entities round-trip as JSON under todo.<id>, ordered by id")
    func roundTrip() throws {
        let store = InMemoryKeyValueStore()
        let todos = try repository(store, saving: [TodoItem.report, .milk, .bike])
        #expect(store.keys(withPrefix: "") == ["todo.1", "todo.2", "todo.3"])
        #expect(todos.readAll().entities == [.milk, .bike, .report])
        #expect(todos.readAll().issues == [])
        #expect(try todos.entity(withID: 2) == .bike)
        #expect(try todos.entity(withID: 9) == nil)
        let json = try #require(store.contents["todo.1"]).asText
        #expect(json == #"{"authorID":"ana","id":1,"priority":2,"project":"Home","title":"Buy milk"}"#)
    }

    @Test("A value written without the optional authorID still reads")
    func optionalAuthor() throws {
        let store = InMemoryKeyValueStore()
        try store.set(#"{"id":4,"title":"Old","project":"Home","priority":1}"#, forKey: "todo.4")
        let todos = EntityRepository<TodoItem>(store: store)
        #expect(try todos.entity(withID: 4) == TodoItem(id: 4, title: "Old", project: "Home", priority: 1))
    }

    @Test(
        "An unreadable value is reported and skipped; the others are read and it stays stored",
        arguments: [
            ("todo.5", #"{"id":5,"text":"Water plants","done":false}"#, StoredValueIssue.Reason.missingField("title")),
            ("todo.5", "not json {", .notJSON),
            ("todo.5", #"{"id":5,"title":"T","project":"P","priority":"high"}"#, .wrongType(field: "priority")),
            ("todo.5", #"{"id":5,"title":null,"project":"P","priority":1}"#, .wrongType(field: "title")),
            ("todo.5", #"{"id":6,"title":"T","project":"P","priority":1}"#, .idMismatch(valueID: "6")),
            ("todo.five", #"{"id":5,"title":"T","project":"P","priority":1}"#, .keyWithoutID),
        ])
    func unreadableValue(key: String, value: String, reason: StoredValueIssue.Reason) throws {
        let store = InMemoryKeyValueStore()
        let reported = Mutex<[StoredValueIssue]>([])
        let todos = EntityRepository<TodoItem>(
            store: store, reportIssue: { issue in reported.withLock { $0.append(issue) } })
        try todos.save(.milk)
        try store.set(value, forKey: key)
        try todos.save(.report)

        #expect(todos.fetchAll() == [.milk, .report])
        #expect(reported.withLock { $0 } == [StoredValueIssue(key: key, reason: reason)])
        #expect(store.contents[key]?.asText == value)
    }

    @Test("A value that is not data is reported and skipped")
    func notData() async throws {
        try await withTemporaryFolder { folder in
            let path = folder.appendingPathComponent("todos.plist").path
            try writePropertyList(["todo.1": "Buy milk", "todo.2": try JSONEncoder().encode(TodoItem.bike)], to: path)
            let (entities, issues) = EntityRepository<TodoItem>(store: try FileKeyValueStore(path: path)).readAll()
            #expect(entities == [.bike])
            #expect(issues == [StoredValueIssue(key: "todo.1", reason: .notData(found: "text"))])
        }
    }

    @Test("entity(withID:) throws the issue of an unreadable value")
    func unreadableEntity() throws {
        let store = InMemoryKeyValueStore()
        try store.set("{}", forKey: "todo.3")
        #expect(throws: StoredValueIssue(key: "todo.3", reason: .missingField("id"))) {
            try EntityRepository<TodoItem>(store: store).entity(withID: 3)
        }
    }

    @Test("storedIDs lists readable and unreadable ids")
    func storedIDs() throws {
        let store = InMemoryKeyValueStore()
        let todos = try repository(store, saving: [TodoItem.bike])
        try store.set("corrupted", forKey: "todo.10")
        try store.set("corrupted", forKey: "todo.x")
        #expect(todos.storedIDs() == [2, 10])
    }

    @Test(
        "Issues read as messages",
        arguments: [
            (StoredValueIssue.Reason.keyWithoutID, "the key does not end with an id"),
            (.notData(found: "text"), "the value is text, not encoded data"),
            (.notJSON, "the value is not JSON (corrupted?)"),
            (.missingField("title"), "missing field \"title\" (written by an older version?)"),
            (.wrongType(field: "priority"), "field \"priority\" has the wrong type"),
            (.invalidField("due"), "field \"due\" has an invalid value"),
            (.idMismatch(valueID: "6"), "the value is entity 6, not the one its key names"),
        ])
    func issueMessage(reason: StoredValueIssue.Reason, message: String) {
        #expect("\(StoredValueIssue(key: "todo.5", reason: reason))" == "\"todo.5\": \(message)")
    }

    @Test("Every write publishes its event")
    func publishesEvents() throws {
        let store = InMemoryKeyValueStore()
        let todos = EntityRepository<TodoItem>(store: store)
        let received = Mutex<[EntityEvent<TodoItem>]>([])
        let subscription = todos.events.subscribe(
            EventSubscriber { events in received.withLock { $0.append(contentsOf: events) } })
        defer { subscription.cancel() }

        try todos.save(.milk)
        var renamed = TodoItem.milk
        renamed.title = "Buy oat milk"
        try todos.save(renamed)
        #expect(try todos.delete(id: 1))
        #expect(try !todos.delete(id: 1))
        try store.set("corrupted", forKey: "todo.7")
        #expect(try todos.delete(id: 7))
        try todos.save(.bike)
        try todos.deleteAll()

        #expect(
            received.withLock { $0 } == [
                .inserted(.milk), .updated(renamed), .deleted(1), .deleted(7), .inserted(.bike), .invalidated,
            ])
        #expect(store.contents.isEmpty)
    }
}

extension Data {
    var asText: String { String(decoding: self, as: UTF8.self) }
}

@Suite("Entity repository: batches and pages")
struct EntityRepositoryBatchTests {
    @Test("saveAll stores in one write and publishes one batch: inserted for new ids, updated for stored ones")
    func saveAll() throws {
        let store = CountingStore()
        let todos = try repository(store, saving: [TodoItem.milk])
        let batches = Mutex<[[EntityEvent<TodoItem>]]>([])
        let subscription = todos.events.subscribe(EventSubscriber { events in batches.withLock { $0.append(events) } })
        defer { subscription.cancel() }
        var renamed = TodoItem.milk
        renamed.title = "Buy oat milk"

        try todos.saveAll([.bike, renamed, .report])
        #expect(store.writes == 2)
        #expect(batches.withLock { $0 } == [[.inserted(.bike), .updated(renamed), .inserted(.report)]])
        #expect(todos.readAll().entities == [renamed, .bike, .report])
    }

    /// Stored ids 1, 2, 3, 5, 6 and 9, where 5 and 6 cannot be read, and a key without an id.
    func storeWithGaps(reportIssue: @escaping @Sendable (StoredValueIssue) -> Void = { _ in }) throws
        -> EntityRepository<TodoItem>
    {
        let store = InMemoryKeyValueStore()
        let todos = EntityRepository<TodoItem>(store: store, reportIssue: reportIssue)
        try todos.saveAll((1...3).map(Self.item) + [Self.item(9)])
        try store.set("corrupted", forKey: "todo.5")
        try store.set(#"{"id":6}"#, forKey: "todo.6")
        try store.set("{}", forKey: "todo.x")
        return todos
    }

    static func item(_ id: Int) -> TodoItem {
        TodoItem(id: id, title: "Task \(id)", project: "P", priority: 1)
    }

    @Test(
        "A page is the readable entities among the next stored ids after its cursor, and the last id it scanned",
        arguments: [
            (nil, 2, [1, 2], 2),
            (2, 2, [3], 5),  // 5 cannot be read: a short page, with a next one
            (3, 2, [], 6),  // neither can 6: an empty page, with a next one
            (6, 2, [9], nil),
            (nil, 6, [1, 2, 3, 9], nil),  // it scanned every id: the last page
            (9, 2, [], nil),
            (4, 1, [], 5),  // a cursor that is no stored id starts after it
            (100, 5, [], nil),
        ] as [(Int?, Int, [Int], Int?)])
    func page(after cursor: Int?, limit: Int, ids: [Int], next: Int?) throws {
        let todos = try storeWithGaps()
        let page = todos.fetchPage(after: cursor, limit: limit)
        #expect(page.entities == ids.map(Self.item))
        #expect(page.next == next.map { .some($0) })
        #expect(page.previous == nil)
    }

    @Test("The pages report each unreadable value they scan, once, and together hold every readable entity")
    func pagesReportWhatTheySkip() throws {
        let skipped = Mutex<[String]>([])
        let todos = try storeWithGaps { issue in skipped.withLock { $0.append(issue.key) } }
        var entities: [TodoItem] = []
        var cursor: Int?? = .some(nil)
        while let after = cursor {
            let page = todos.fetchPage(after: after, limit: 2)
            entities += page.entities
            cursor = page.next
        }
        #expect(entities == todos.readAll().entities)
        #expect(skipped.withLock { $0 } == ["todo.5", "todo.6"])
    }
}
