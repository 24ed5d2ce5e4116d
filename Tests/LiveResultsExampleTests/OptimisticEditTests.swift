import Foundation
import LiveResults
import LiveResultsExampleKit
import Synchronization
import Testing

@Suite("Optimistic edits")
struct OptimisticEditTests {
    /// A loaded list over `store` holding Buy milk (p2) and Fix bike (p1), in Home, its updates taken.
    func loadedList(_ store: any KeyValueStore = InMemoryKeyValueStore()) async throws -> TodoList {
        _ = try repository(store, saving: [TodoItem.milk, .bike])
        let todos = TodoList(store: store)
        try await todos.load()
        _ = todos.takeUpdates()
        return todos
    }

    static let raised = "moved #1 from 0.1 to 0.0; updated #1 at 0.0"
    static let loweredBack = "moved #1 from 0.0 to 0.1; updated #1 at 0.1"

    @Test("The edit is shown before the store writes it")
    func shownBeforeTheWrite() async throws {
        let store = WriteWatchingStore()
        let todos = try await loadedList(store)
        let shownAtWrite = Mutex<[TodoItem]>([])
        store.beforeEachWrite { shownAtWrite.withLock { $0 = Array(todos.controller.fetchedObjects) } }

        try await todos.editOptimistically(id: 1) { $0.priority = 1 }
        let raised = TodoItem(id: 1, title: "Buy milk", project: "Home", priority: 1, authorID: "ana")
        #expect(shownAtWrite.withLock { $0 } == [raised, .bike])
        #expect(try todos.stored(1) == raised)
    }

    @Test("A successful write keeps the edit: one change set, shown at once; the store's event changes nothing more")
    func successfulWriteStays() async throws {
        let todos = try await loadedList()
        let edited = try await todos.editOptimistically(id: 1) { $0.priority = 1 }
        #expect(Array(todos.controller.fetchedObjects) == [edited, .bike])
        #expect(try todos.stored(1) == edited)
        #expect(TodoFormatter.lines(for: todos.takeUpdates()) == ["  shown at once: \(Self.raised)"])
    }

    @Test("A failed write rolls the edit back: the list and the store are as before; the next write succeeds")
    func failedWriteRollsBack() async throws {
        let todos = try await loadedList()
        let before = Array(todos.controller.fetchedObjects)
        todos.failNextWrite()
        let failure = TodoListError.storeFailed(.writeFailed(location: "memory", reason: "simulated failure"))
        await #expect(throws: failure) { try await todos.editOptimistically(id: 1) { $0.priority = 1 } }
        #expect(Array(todos.controller.fetchedObjects) == before)
        #expect(try todos.stored(1) == .milk)
        #expect(
            TodoFormatter.lines(for: todos.takeUpdates()) == [
                "  shown at once: \(Self.raised)",
                "  write failed: simulated failure; rolled back: \(Self.loweredBack)",
            ])

        try await todos.editOptimistically(id: 1) { $0.priority = 1 }
        #expect(try todos.stored(1).priority == 1)
    }

    @Test("A failed write while paused says the rollback is held; resuming finds nothing changed")
    func failedWriteWhilePaused() async throws {
        let todos = try await loadedList()
        todos.controller.pause()
        todos.failNextWrite()
        await #expect(throws: TodoListError.self) { try await todos.editOptimistically(id: 1) { $0.priority = 1 } }
        #expect(
            TodoFormatter.lines(for: todos.takeUpdates(), whilePaused: true) == [
                #"  write failed: simulated failure; rolled back: held until "resume""#
            ])
        #expect(todos.controller.resume().isEmpty)
        #expect(try todos.stored(1) == .milk)
    }

    @Test("An unknown id fails before anything is shown")
    func unknownID() async throws {
        let todos = try await loadedList()
        await #expect(throws: TodoListError.unknownID(9)) {
            try await todos.editOptimistically(id: 9) { $0.priority = 1 }
        }
        #expect(todos.takeUpdates() == [])
    }

    @Test("A simulated failure fails one write of any kind, and changes nothing")
    func simulatedFailureStore() throws {
        let store = SimulatedFailureStore(InMemoryKeyValueStore())
        store.failNextWrite()
        #expect(throws: KeyValueStoreError.writeFailed(location: "memory", reason: "simulated failure")) {
            try store.setValues(["todo.1": Data("x".utf8)])
        }
        #expect(store.keys(withPrefix: "") == [])
        try store.set(Data("x".utf8), forKey: "todo.1")
        store.failNextWrite()
        #expect(throws: KeyValueStoreError.self) { try store.removeValue(forKey: "todo.1") }
        #expect(try store.data(forKey: "todo.1") == Data("x".utf8))
    }
}
