import Foundation
import LiveResults
import LiveResultsExampleKit
import Synchronization
import Testing

@Suite("Authors through an association")
struct AuthorAssociationTests {
    static let todos = [
        TodoItem(id: 1, title: "Buy milk", project: "Home", priority: 2, authorID: "ana"),
        TodoItem(id: 2, title: "Fix bike", project: "Home", priority: 1, authorID: "ben"),
        TodoItem(id: 3, title: "Write report", project: "Work", priority: 1, authorID: "ana"),
        TodoItem(id: 4, title: "Plan trip", project: "Work", priority: 2, authorID: "cy"),
        TodoItem(id: 5, title: "Mow lawn", project: "Garden", priority: 3),
    ]

    /// A loaded list over a store holding ``todos`` and the demo's authors.
    func loadedList() async throws -> TodoList {
        let store = InMemoryKeyValueStore()
        _ = try repository(store, saving: Self.todos)
        _ = try repository(store, saving: ScriptedDemo.authors)
        let todos = TodoList(store: store)
        try await todos.load()
        return todos
    }

    @Test("The authors of the shown to-dos come in one request, each id once, and are then cached")
    func oneBatch() async throws {
        let todos = try await loadedList()
        let listing = try await todos.listing()
        #expect(todos.authorRequestCount == AuthorRequestCount(requests: 1, keys: 3))
        #expect(listing.authorUpdates.first == .authorsRequested(["ana", "ben", "cy"]))
        #expect(listing.authors.mapValues(\.name) == [1: "Ana Lima", 2: "Ben Okafor", 3: "Ana Lima"])

        let again = try await todos.listing()
        #expect(again.authorUpdates == [])
        #expect(todos.authorRequestCount.requests == 1)
    }

    @Test("An author id with no stored author shows a fallback; a to-do without one shows no author")
    func unknownAuthor() async throws {
        let listing = try await loadedList().listing()
        let lines = TodoFormatter.rows(of: listing)
        #expect(lines.contains("    0.0  #5 Mow lawn (p3)"))
        #expect(lines.contains("    2.1  #4 Plan trip (p2, by cy (unknown author))"))

        let interpreter = Interpreter(todos: try await loadedList())
        #expect(
            await interpreter.handle("add Home 1 Call plumber @zed").lines.first
                == "added #6 Call plumber (p1, by zed (unknown author)) to Home")
    }

    @Test("A renamed author shows once the cached authors are forgotten, after one more request")
    func refresh() async throws {
        let todos = try await loadedList()
        _ = try await todos.listing()
        try todos.authorRepository.save(Author(id: "ben", name: "Benjamin Okafor"))
        try await todos.load()
        #expect(try await todos.listing().authors[2]?.name == "Ben Okafor")  // a refetch keeps the cache

        todos.forgetAuthors()
        let listing = try await todos.listing()
        #expect(listing.updates.count == 1)  // the to-dos that had an author, reported as updated
        #expect(listing.authors[2]?.name == "Benjamin Okafor")
        #expect(todos.authorRequestCount == AuthorRequestCount(requests: 2, keys: 6))
    }

    @Test("entities(withIDs:) reads the ids it is given, leaving out the missing and the unreadable")
    func entitiesWithIDs() throws {
        let store = InMemoryKeyValueStore()
        _ = try repository(store, saving: ScriptedDemo.authors)
        try store.set("oops", forKey: "author.cy")
        let issues = Mutex<[StoredValueIssue]>([])
        let authors = EntityRepository<Author>(
            store: store, reportIssue: { issue in issues.withLock { $0.append(issue) } })
        #expect(authors.entities(withIDs: ["ana", "cy", "zed"]) == ["ana": .ana])
        #expect(issues.withLock { $0.map(\.key) } == ["author.cy"])
    }
}
