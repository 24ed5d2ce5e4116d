import LiveResults
import LiveResultsExampleKit
import Testing

@Suite("What the list displays: paused and collapsed")
struct TodoListDisplayTests {
    /// A loaded list of `items`, its updates taken.
    func loadedList(_ items: [TodoItem]) async throws -> TodoList {
        let store = InMemoryKeyValueStore()
        _ = try repository(store, saving: items)
        let todos = TodoList(store: store)
        try await todos.load()
        _ = todos.takeUpdates()
        return todos
    }

    /// The ids of the displayed to-dos, section by section.
    func displayedIDs(_ todos: TodoList) -> [[Int]] {
        todos.display.sections.map { $0.objects.map(\.id) }
    }

    @Test(
        "While paused, the display keeps the list of the pause and nothing is recorded; resume records one change set")
    func pausedListRecordsOneChangeSetOnResume() async throws {
        let todos = try await loadedList([.milk, .bike, .report])
        todos.controller.pause()
        try todos.add(title: "Call plumber", project: "Home", priority: 1)
        try todos.edit(id: 3) { $0.project = "Home" }
        try todos.delete(id: 2)
        #expect(todos.takeUpdates() == [])
        #expect(displayedIDs(todos) == [[2, 1], [3]])
        #expect(try await todos.listing().isPaused)

        let missed = todos.controller.resume()
        // Nothing is collapsed: the display's change set is the controller's.
        #expect(todos.takeUpdates() == [.changed(missed)])
        #expect(missed.deletedSectionNames == ["Work"])
        #expect(missed.deletedItemIDs.sorted() == [2])
        #expect(missed.insertedItemIDs.sorted() == [4])
        #expect(displayedIDs(todos) == [[4, 3, 1]])
        #expect(try await todos.listing().isPaused == false)
    }

    @Test("A collapsed project's change sets are in display coordinates: its to-dos leave, the section is updated")
    func collapsedChangeSets() async throws {
        let todos = try await loadedList([.milk, .bike, .report])
        let collapsed = todos.display.collapse("Home")
        #expect(todos.takeUpdates() == [.changed(collapsed)])
        #expect(collapsed.updatedSectionNames == ["Home"])
        #expect(collapsed.deletedItemIDs.sorted() == [1, 2])
        #expect(displayedIDs(todos) == [[], [3]])

        try todos.add(title: "Call plumber", project: "Home", priority: 1)
        let updates = todos.takeUpdates()
        #expect(updates.count == 1)
        guard case .changed(let added) = updates.first else {
            Issue.record("expected a change set, got \(updates)")
            return
        }
        #expect(added.insertedItems.isEmpty)
        #expect(added.updatedSectionNames == ["Home"])
        #expect(todos.controller.fetchedObjects.map(\.id) == [4, 2, 1, 3])
        #expect(todos.display.sections.map(\.numberOfHiddenObjects) == [3, 0])
    }
}
