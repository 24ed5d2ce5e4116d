import Foundation
import LiveResults

/// The default mode: seeds a store, then adds, renames, re-prioritises, moves between projects and
/// deletes to-dos, printing after each step the change set of what the list displays, and the list.
/// Authors come through the ``TodoList/authors`` association: the demo prints each batch request,
/// the change set that reports their arrival, and at the end how many requests it made. Its last
/// steps open a second list that reads the store a page at a time and load its next page, pause that
/// list while three changes are made and resume it, which delivers one change set for all three, and
/// collapse a project. Then it edits a to-do optimistically twice, the first time with a write that
/// fails, which rolls the edit back, and opens the second list again, as the next launch would: the
/// new list shows the to-dos the second list saved at once, and then what reading the store changed.
///
/// It starts by replacing every to-do in the store with its ``seed``, and removing the to-dos its
/// lists saved, so it prints the same lines on every run, but for the time the saved to-dos show. It
/// needs no timing: each step's change set is ready when the step returns.
public enum ScriptedDemo {
    /// The to-dos the demo starts with.
    public static let seed = [
        TodoItem(id: 1, title: "Buy milk", project: "Home", priority: 2, authorID: "ana"),
        TodoItem(id: 2, title: "Fix bike", project: "Home", priority: 1, authorID: "ben"),
        TodoItem(id: 3, title: "Write report", project: "Work", priority: 1, authorID: "ana"),
        TodoItem(id: 4, title: "Email Ana", project: "Work", priority: 2, authorID: "ben"),
        TodoItem(id: 5, title: "Mow lawn", project: "Garden", priority: 3),
    ]

    /// The authors the demo starts with, stored next to the to-dos.
    public static let authors = [Author(id: "ana", name: "Ana Lima"), Author(id: "ben", name: "Ben Okafor")]

    /// A value as an older version of the example wrote it, without the `title` and `project`
    /// fields of ``TodoItem``: the demo shows it skipped and reported, never lost.
    public static let legacyValue = (key: "todo.6", json: #"{"done":false,"id":6,"text":"Water plants"}"#)

    /// The demo's steps, in order.
    public static let steps = [
        DemoStep("add \"Call plumber\" to Home, priority 1") { todos in
            try todos.add(title: "Call plumber", project: "Home", priority: 1, authorID: "ben")
        },
        DemoStep("rename #1 \"Buy milk\" to \"Buy oat milk\"") { todos in
            try todos.edit(id: 1) { $0.title = "Buy oat milk" }
        },
        DemoStep("raise #4 \"Email Ana\" to priority 1") { todos in
            try todos.edit(id: 4) { $0.priority = 1 }
        },
        DemoStep("move #2 \"Fix bike\" to Work") { todos in
            try todos.edit(id: 2) { $0.project = "Work" }
        },
        DemoStep("add \"Buy stamps\" to a new project, Errands, priority 2, by zoe, who is no stored author") { todos in
            try todos.add(title: "Buy stamps", project: "Errands", priority: 2, authorID: "zoe")
        },
        DemoStep("delete #5 \"Mow lawn\", the last to-do of Garden") { todos in
            try todos.delete(id: 5)
        },
        DemoStep("refetch everything from the store") { todos in
            try await todos.load()
        },
        DemoStep(
            "rename author ben to \"Benjamin Okafor\" in the store, then forget the cached authors",
            note: "A refetch keeps cached authors: a memory-pressure signal drops them, and the list reads them again."
        ) { todos in
            try todos.authorRepository.save(Author(id: "ben", name: "Benjamin Okafor"))
            todos.forgetAuthors()
        },
        DemoStep.opening(
            "add 12 to-dos to a new project, Later, then open a second list that reads 5 stored to-dos a page",
            note: "Pages follow the stored ids: the first reads 1 to 4 and 6, which cannot be read, so it shows 4"
                + " to-dos; more ids follow, so there is a next page."
        ) { todos in
            try todos.generate(count: 12, project: "Later")
            let paged = TodoList(
                store: todos.repository.store, pageSize: pageSizes[1], resultsStore: todos.resultsStore)
            try await paged.load()
            return paged
        },
        DemoStep("load the next page of the second list: stored ids 7 to 11") { todos in
            try await todos.loadMore()
        },
        DemoStep(
            "pause the second list, then delete #8 \"Buy stamps\", raise #11 \"Task 11\" to priority 1 and move"
                + " #10 \"Task 10\" to Home",
            note: "The store and the controller take every change, but the list stays as it was and no change set"
                + " is delivered. The association gives the authors of the current to-dos: #8's is not available."
        ) { todos in
            todos.controller.pause()
            try todos.delete(id: 8)
            try todos.edit(id: 11) { $0.priority = 1 }
            try todos.edit(id: 10) { $0.project = "Home" }
        },
        DemoStep(
            "resume the second list",
            note: "One change set turns the list at the pause into the list now, as if the three changes were one."
        ) { todos in
            todos.controller.resume()
        },
        DemoStep("collapse Later: a header without its to-dos") { todos in
            todos.display.collapse("Later")
        },
        DemoStep(
            "make the next write fail, then raise #1 \"Buy oat milk\" to priority 1",
            note: "The list shows the edit at once, before the store saves it; the write fails, and the edit is"
                + " rolled back."
        ) { todos in
            todos.failNextWrite()
            do throws(TodoListError) {
                try await todos.editOptimistically(id: 1) { $0.priority = 1 }
            } catch .storeFailed {
                // Expected: the list's updates show the rollback.
            }
        },
        DemoStep(
            "raise #1 \"Buy oat milk\" to priority 1 again: this write succeeds",
            note: "The store's event brings the version shown already: nothing more changes."
        ) { todos in
            try await todos.editOptimistically(id: 1) { $0.priority = 1 }
        },
        DemoStep.opening(
            "open the second list again, as the next launch would: a new list over the same store and saved to-dos",
            note: "It shows at once the to-dos the second list saved when it loaded its second page, reads the"
                + " store behind them, and reports what changed since in one change set."
        ) { todos in
            let reopened = TodoList(
                store: todos.repository.store, pageSize: todos.pageSize, resultsStore: todos.resultsStore)
            try await reopened.load()
            return reopened
        },
    ]

    /// The page sizes of the demo's lists: the first reads 20 stored to-dos a page, the second 5.
    static let pageSizes = [TodoList.defaultPageSize, 5]

    /// Runs the demo on `store`, replacing the to-dos in it.
    ///
    /// - Parameters:
    ///   - store: Where the to-dos are kept; its other keys are left alone.
    ///   - resultsStore: Where the lists save the to-dos they show; in memory by default. The demo
    ///     removes what its lists saved there before.
    ///   - output: Receives each line of output as it is produced.
    /// - Throws: A ``KeyValueStoreError`` or ``TodoListError`` if the store fails, or the error of the
    ///   results store if it cannot remove what the lists saved.
    public static func run(
        store: any KeyValueStore, resultsStore: any ResultsStore = InMemoryResultsStore(), output: (String) -> Void
    ) async throws {
        try await reset(store, resultsStore)
        output("Seeded \(seed.count) to-dos, and under \"\(legacyValue.key)\" a value from an older version.")
        let first = TodoList(store: store, resultsStore: resultsStore)
        try await first.load()
        let listing = try await first.listing()
        output("Fetched \(TodoFormatter.summary(of: listing.snapshot)):")
        TodoFormatter.lines(for: listing, showsChanges: false).forEach(output)
        var lists = [first]
        for (number, step) in steps.enumerated() {
            output("")
            output("Step \(number + 1): \(step.title)")
            step.note.map { output("  \($0)") }
            let todos = try await step.action(lists[lists.count - 1])
            if todos !== lists.last { lists.append(todos) }
            TodoFormatter.lines(for: try await todos.listing()).forEach(output)
        }
        output("")
        let last = lists[lists.count - 1]
        let loaded = TodoFormatter.summary(of: last.controller.snapshot)
        output("Done: \(loaded) loaded from \(TodoFormatter.count(last.pagesLoaded, "page")), all saved in the store.")
        output("Authors fetched in \(authorRequests(of: lists)): one batch each time a list needed some.")
    }

    /// `3 requests for 6 keys by the first list, 2 requests for 3 keys by the second`…
    private static func authorRequests(of lists: [TodoList]) -> String {
        let ordinals = ["first list", "second", "third"]
        return lists.enumerated().map { index, list in
            "\(list.authorRequestCount) by the \(index < ordinals.count ? ordinals[index] : "list \(index + 1)")"
        }.joined(separator: ", ")
    }

    /// Replaces every to-do in `store` with the ``seed`` and the ``legacyValue``, and every author with
    /// the demo's ``authors``, and removes the to-dos the demo's lists saved in `resultsStore`.
    private static func reset(_ store: any KeyValueStore, _ resultsStore: any ResultsStore) async throws {
        try replaceAll(in: store, with: seed)
        try replaceAll(in: store, with: authors)
        try store.set(Data(legacyValue.json.utf8), forKey: legacyValue.key)
        for pageSize in pageSizes {
            try await resultsStore.removeResults(forKey: TodoList.savedResultsKey(pageSize: pageSize))
        }
    }

    private static func replaceAll<Entity: StorableEntity>(in store: any KeyValueStore, with entities: [Entity]) throws
    {
        let repository = EntityRepository<Entity>(store: store)
        try repository.deleteAll()
        try repository.saveAll(entities)
    }
}
