import Foundation
import LiveResults
import LiveResultsExampleKit
import Synchronization
import Testing

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
        try todos.saveAll([])  // nothing to write or publish
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
