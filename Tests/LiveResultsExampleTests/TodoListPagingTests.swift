import Foundation
import LiveResults
import Synchronization
import Testing

@testable import LiveResultsExampleKit

@Suite("Paging over the store")
struct TodoListPagingTests {
    /// To-dos 1 to `count`, each its own title, in one project.
    static func tasks(_ ids: ClosedRange<Int>) -> [TodoItem] {
        ids.map { TodoItem(id: $0, title: "Task \($0)", project: "P", priority: 1) }
    }

    /// A loaded list with pages of `pageSize` over a store holding `items` and the `unreadable` ids.
    func loadedList(_ items: [TodoItem], unreadable: [Int] = [], pageSize: Int) async throws -> TodoList {
        let store = InMemoryKeyValueStore()
        _ = try repository(store, saving: items)
        for id in unreadable {
            try store.set("corrupted", forKey: "todo.\(id)")
        }
        let todos = TodoList(store: store, pageSize: pageSize)
        try await todos.load()
        return todos
    }

    func shownIDs(_ todos: TodoList) -> [Int] {
        todos.controller.fetchedObjects.map(\.id).sorted()
    }

    @Test("The first fetch shows the first page; each loadMore the next, until no stored id is left")
    func firstPageThenMore() async throws {
        let todos = try await loadedList(Self.tasks(1...12), pageSize: 5)
        #expect(shownIDs(todos) == Array(1...5))
        #expect(todos.hasMore)
        #expect(todos.pagesLoaded == 1)
        _ = todos.takeUpdates()

        let second = try #require(try await todos.loadMore())
        #expect(second.insertedItems.count == 5)
        #expect(todos.takeUpdates() == [.changed(second)])  // delivered like any change
        #expect(shownIDs(todos) == Array(1...10))
        #expect(todos.hasMore)

        let third = try #require(try await todos.loadMore())
        #expect(third.insertedItems.count == 2)
        #expect(shownIDs(todos) == Array(1...12))
        #expect(!todos.hasMore)
        #expect(todos.pagesLoaded == 3)

        #expect(try await todos.loadMore() == nil)
        #expect(todos.pagesLoaded == 3)
        #expect(todos.takeUpdates() == [.changed(third)])
    }

    @Test("A page of exactly the last stored ids is the last page")
    func exactLastPage() async throws {
        let todos = try await loadedList(Self.tasks(1...10), pageSize: 5)
        try await todos.loadMore()
        #expect(!todos.hasMore)
        #expect(shownIDs(todos) == Array(1...10))
    }

    @Test("Unreadable values make a page short, or empty, and are reported; the pages go on past them")
    func unreadableInsidePages() async throws {
        let todos = try await loadedList(Self.tasks(1...3) + Self.tasks(7...8), unreadable: [4, 5, 6], pageSize: 2)
        #expect(shownIDs(todos) == [1, 2])

        #expect(try await todos.loadMore()?.insertedItems.count == 1)  // 3, and 4 cannot be read
        #expect(todos.hasMore)
        #expect(try await todos.loadMore()?.isEmpty == true)  // neither 5 nor 6 can be read
        #expect(todos.hasMore)
        #expect(try await todos.loadMore()?.insertedItems.count == 2)  // 7 and 8, the last stored ids
        #expect(!todos.hasMore)
        #expect(shownIDs(todos) == [1, 2, 3, 7, 8])
        #expect(todos.pagesLoaded == 4)
        let skipped = todos.takeUpdates().compactMap { update in
            if case .skipped(let issue) = update { issue.key } else { nil }
        }
        #expect(skipped == ["todo.4", "todo.5", "todo.6"])
    }

    @Test("A refetch reloads as many pages as were loaded")
    func refetchKeepsPages() async throws {
        let todos = try await loadedList(Self.tasks(1...12), pageSize: 5)
        try await todos.loadMore()
        try todos.repository.store.set("corrupted", forKey: "todo.3")  // behind the list's back
        _ = todos.takeUpdates()

        try await todos.load()
        #expect(shownIDs(todos) == [1, 2, 4, 5, 6, 7, 8, 9, 10])
        #expect(todos.pagesLoaded == 2)
        #expect(todos.hasMore)
    }

    @Test("Generated to-dos are live inserts, shown whatever the pages; a page that holds them adds only the others")
    func generatedAreLive() async throws {
        let todos = try await loadedList(Self.tasks(1...6), pageSize: 5)
        _ = todos.takeUpdates()

        let generated = try todos.generate(count: 3, project: "Later")
        #expect(generated.map(\.id) == [7, 8, 9])
        #expect(shownIDs(todos) == [1, 2, 3, 4, 5, 7, 8, 9])
        #expect(todos.takeUpdates().count == 1)  // one change set for the batch

        let page = try #require(try await todos.loadMore())  // 6 to 9: only 6 is new
        #expect(page.insertedItems.count == 1)
        #expect(page.updatedItems.isEmpty)
        #expect(shownIDs(todos) == Array(1...9))
        #expect(!todos.hasMore)
    }

    @Test("generate stores its to-dos in one write, after every stored id, titled by id, priorities cycling")
    func generateInOneWrite() async throws {
        let store = CountingStore()
        try store.set("corrupted", forKey: "todo.4")
        let todos = TodoList(store: store)
        try await todos.load()
        _ = todos.takeUpdates()
        let writes = store.writes

        let items = try todos.generate(count: 7, project: "Later")
        #expect(store.writes == writes + 1)
        #expect(items.map(\.id) == Array(5...11))
        #expect(items.map(\.title) == (5...11).map { "Task \($0)" })
        #expect(items.map(\.priority) == [1, 2, 3, 1, 2, 3, 1])
        #expect(Set(items.map(\.project)) == ["Later"])
        #expect(todos.repository.readAll().entities == items)
        let updates = todos.takeUpdates()
        #expect(updates.count == 1)
        guard case .changed(let changes) = updates.first else {
            Issue.record("expected one change set, got \(updates)")
            return
        }
        #expect(changes.insertedItems.count == 7)
        #expect(changes.insertedSections == [0])
    }

    @Test("A page that cannot be read throws, or answers `more` with an error, changes nothing, and loads on a retry")
    func failedPage() async throws {
        struct Unreachable: Error, CustomStringConvertible {
            var description: String { "the disk is unplugged" }
        }
        let store = InMemoryKeyValueStore()
        _ = try repository(store, saving: Self.tasks(1...4))
        let failuresLeft = Mutex(2)
        let todos = TodoList(store: store, pageSize: 2) { repository, after in
            // The first page reads; the second fails twice, then reads.
            if after != nil {
                try failuresLeft.withLock { left in
                    guard left > 0 else { return }
                    left -= 1
                    throw Unreachable()
                }
            }
            return repository.fetchPage(after: after, limit: 2)
        }
        try await todos.load()

        await #expect(throws: TodoListError.pageUnavailable("the disk is unplugged")) { try await todos.loadMore() }
        #expect(shownIDs(todos) == [1, 2])
        #expect(todos.hasMore)
        #expect(todos.controller.pagination.lastError is Unreachable)
        #expect(
            await Interpreter(todos: todos).handle("more").lines == [
                #"error: the next page could not be read: the disk is unplugged; "more" tries again"#
            ])
        #expect(shownIDs(todos) == [1, 2])

        #expect(try await todos.loadMore()?.insertedItems.count == 2)
        #expect(shownIDs(todos) == [1, 2, 3, 4])
        #expect(todos.controller.pagination.lastError == nil)
    }
}
