import Foundation
import LiveResults
import Testing

@testable import LiveResultsExampleKit

@Suite("Saved to-dos")
struct SavedResultsTests {
    /// A list over the property list file `todos.plist` in `folder`, saving what it shows next to it, as
    /// the interactive mode opens it.
    func list(in folder: URL, pageSize: Int = TodoList.defaultPageSize) throws -> TodoList {
        let path = folder.appendingPathComponent("todos.plist").path
        return TodoList(
            store: try FileKeyValueStore(path: path), pageSize: pageSize,
            resultsStore: ExampleApp.resultsStore(nextTo: path))
    }

    /// A list over `store` saving in `results`, whose clock says `now`, and whose pages fail if `fails`.
    func list(
        _ store: any KeyValueStore, _ results: any ResultsStore, now: Date, failing fails: Bool = false
    ) -> TodoList {
        let readPage: @Sendable (EntityRepository<TodoItem>, Int?) throws -> Page<TodoItem, Int?> = {
            if fails { throw CancellationError() }
            return $0.fetchPage(after: $1, limit: TodoList.defaultPageSize)
        }
        return TodoList(
            store: store, pageSize: TodoList.defaultPageSize, resultsStore: results, now: { now }, readPage: readPage)
    }

    @Test("A second list over the same folder shows the saved to-dos first, then refreshes from the store")
    func secondLaunchShowsSavedThenRefreshes() async throws {
        try await withTemporaryFolder { folder in
            let first = try list(in: folder)
            try await first.load()
            #expect(first.takeUpdates() == [.noSavedResults])
            #expect(first.controller.resultsOrigin == .request)
            try first.add(title: "Buy milk", project: "Home", priority: 2)
            try first.add(title: "Fix bike", project: "Home", priority: 1)
            try await first.load()  // a refetch saves what the list shows
            let savedAt = Date()
            try first.add(title: "Write report", project: "Work", priority: 1)  // after the save

            #expect(
                try FileManager.default.contentsOfDirectory(atPath: folder.path + "/todos.plist.cache") == [
                    "todos-pages-of-20.results"
                ])
            let second = try list(in: folder)
            try await second.load()
            let updates = second.takeUpdates()
            guard case .showingSaved(count: 2, let date) = updates.first else {
                Issue.record("no saved to-dos shown first: \(updates)")
                return
            }
            #expect(abs(date.timeIntervalSince(savedAt)) < 60)
            #expect(
                TodoFormatter.notes(in: Array(updates.dropFirst())) == [
                    #"  refreshed from the store: inserted section 1 "Work"; inserted #3 at 1.0"#
                ])
            #expect(second.controller.resultsOrigin == .request)
            #expect(second.controller.fetchedObjects.map(\.id) == [2, 1, 3])
        }
    }

    @Test("While the store is read, the saved to-dos are shown with origin .cache; they stay if it cannot be read")
    func savedShownWhileRefreshing() async throws {
        let (store, results, now) = (InMemoryKeyValueStore(), InMemoryResultsStore(), Date())
        _ = try repository(store, saving: [TodoItem.milk, .bike])
        try await list(store, results, now: now).load()

        let offline = list(store, results, now: now, failing: true)
        await #expect(throws: CancellationError.self) { try await offline.load() }
        #expect(offline.controller.resultsOrigin == .cache(savedAt: now))
        #expect(offline.controller.fetchedObjects.map(\.id) == [2, 1])
        #expect(
            offline.takeUpdates() == [
                .showingSaved(count: 2, savedAt: now), .diagnostic("fetchFailed(Swift.CancellationError())"),
            ])
    }

    @Test("A refresh that changes nothing says so")
    func refreshWithoutChange() async throws {
        let (store, results, now) = (InMemoryKeyValueStore(), InMemoryResultsStore(), Date())
        _ = try repository(store, saving: [TodoItem.milk])
        try await list(store, results, now: now).load()

        let second = list(store, results, now: now)
        try await second.load()
        #expect(second.takeUpdates() == [.showingSaved(count: 1, savedAt: now), .refreshed(ChangeSet())])
        #expect(
            TodoFormatter.notes(in: [.refreshed(ChangeSet())]) == ["  refreshed from the store: nothing changed"])
    }

    @Test(
        "Saved to-dos are shown first for a day; older ones are not, and the list reads the store",
        arguments: [(23.9, true), (24.1, false)])
    func expiry(hoursLater: Double, showsSaved: Bool) async throws {
        let (store, results, savedAt) = (InMemoryKeyValueStore(), InMemoryResultsStore(), Date())
        _ = try repository(store, saving: [TodoItem.milk])
        try await list(store, results, now: savedAt).load()

        let later = list(store, results, now: savedAt.addingTimeInterval(hoursLater * 3600))
        try await later.load()
        let expected: [TodoListUpdate] =
            showsSaved ? [.showingSaved(count: 1, savedAt: savedAt), .refreshed(ChangeSet())] : [.noSavedResults]
        #expect(later.takeUpdates().filter { if case .changed = $0 { false } else { true } } == expected)
    }

    @Test("Lists with pages of another size keep their own saved to-dos, with their pages")
    func pageSizesKeepTheirOwn() async throws {
        try await withTemporaryFolder { folder in
            let paged = try list(in: folder, pageSize: 2)
            try await paged.load()
            try paged.generate(count: 5, project: "Later")
            try await paged.load()  // saves a page of 2 stored ids
            try await paged.loadMore()  // and the next, with its cursor

            let other = try list(in: folder)
            try await other.load()
            #expect(other.takeUpdates().contains(.noSavedResults))

            let savedAt = try #require(await savedAt(of: folder))
            let reopened = try list(in: folder, pageSize: 2)
            try await reopened.load()
            #expect(reopened.takeUpdates().first == .showingSaved(count: 4, savedAt: savedAt))
            #expect(reopened.pagesLoaded == 2)
            #expect(reopened.hasMore)
            #expect(reopened.controller.fetchedObjects.map(\.id).sorted() == [1, 2, 3, 4])
        }
    }

    /// When the to-dos of pages of 2 were saved in `folder`.
    func savedAt(of folder: URL) async throws -> Date? {
        let store = ExampleApp.resultsStore(nextTo: folder.appendingPathComponent("todos.plist").path)
        return try await store.results(forKey: TodoList.savedResultsKey(pageSize: 2))?.savedAt
    }

    @Test("A second interactive session over the same store opens with the to-dos the first left, then refreshes")
    func secondSession() async throws {
        try await withTemporaryFolder { folder in
            let path = folder.appendingPathComponent("todos.plist").path
            let arguments = ["--interactive", "--store", path]
            let first = FakeConsole(input: ["add Home 2 Buy milk", "quit"])
            #expect(await ExampleApp.run(arguments: arguments, console: first.console) == 0)
            #expect(first.output[1] == "Saved to-dos: \(path).cache")
            #expect(first.output[3] == "  no saved to-dos to show first: read from the store")

            // Another writer, between the sessions: the refresh shows it.
            let mow = TodoItem(id: 2, title: "Mow", project: "Garden", priority: 3)
            _ = try repository(FileKeyValueStore(path: path), saving: [mow])
            let second = FakeConsole(input: ["list"])
            #expect(await ExampleApp.run(arguments: arguments, console: second.console) == 0)
            #expect(
                withoutDates(Array(second.output.dropFirst(2).prefix(8))) == [
                    "2 to-dos in 2 projects:",
                    "  showing 1 to-do saved <date> (refreshing…)",
                    #"  refreshed from the store: inserted section 0 "Garden"; inserted #2 at 0.0"#,
                    #"  section 0 "Garden""#,
                    "    0.0  #2 Mow (p3)",
                    #"  section 1 "Home""#,
                    "    1.0  #1 Buy milk (p2)",
                    "Authors: @ana Ana Lima, @ben Ben Okafor; any other @id shows as an unknown author.",
                ])
        }
    }
}
