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
