import Foundation
import LiveResultsExampleKit
import Testing

@Suite("Interactive interpreter")
struct InterpreterTests {
    /// An interpreter over a loaded list holding `items`, and `extra` raw values.
    func interpreter(_ items: [TodoItem] = [], extra: [String: String] = [:]) async throws -> Interpreter {
        let store = InMemoryKeyValueStore()
        _ = try repository(store, saving: items)
        for (key, value) in extra {
            try store.set(value, forKey: key)
        }
        _ = try repository(store, saving: ScriptedDemo.authors)
        let todos = TodoList(store: store)
        try await todos.load()
        _ = try await todos.listing()  // the authors of `items` are cached
        return Interpreter(todos: todos)
    }

    @Test func add() async throws {
        let interpreter = try await interpreter([.milk])
        #expect(
            await interpreter.handle("add Home 1 Call plumber @ben").lines == [
                "added #2 Call plumber (p1, by Ben Okafor) to Home",
                "  changes: inserted #2 at 0.0",
                "  authors requested in one batch: ben",
                "  authors arrived: updated #2 at 0.0",
                "  section 0 \"Home\"",
                "    0.0  #2 Call plumber (p1, by Ben Okafor)",
                "    0.1  #1 Buy milk (p2, by Ana Lima)",
            ])
        #expect(
            await interpreter.handle("add Errands 3 Buy stamps").lines == [
                "added #3 Buy stamps (p3) to Errands",
                "  changes: inserted section 0 \"Errands\"; inserted #3 at 0.0",
                "  section 0 \"Errands\"",
                "    0.0  #3 Buy stamps (p3)",
                "  section 1 \"Home\"",
                "    1.0  #2 Call plumber (p1, by Ben Okafor)",
                "    1.1  #1 Buy milk (p2, by Ana Lima)",
            ])
    }

    @Test func editTitlePriorityAndAuthor() async throws {
        let interpreter = try await interpreter([.milk, .bike])
        #expect(
            await interpreter.handle("edit 1 title Buy oat milk").lines == [
                "edited #1 Buy oat milk (p2, by Ana Lima)",
                "  changes: updated #1 at 0.1",
                "  section 0 \"Home\"",
                "    0.0  #2 Fix bike (p1)",
                "    0.1  #1 Buy oat milk (p2, by Ana Lima)",
            ])
        #expect(
            await interpreter.handle("edit 1 priority 0").lines == [
                "edited #1 Buy oat milk (p0, by Ana Lima)",
                "  changes: moved #1 from 0.1 to 0.0; updated #1 at 0.0",
                "  section 0 \"Home\"",
                "    0.0  #1 Buy oat milk (p0, by Ana Lima)",
                "    0.1  #2 Fix bike (p1)",
            ])
        #expect(
            await interpreter.handle("edit 1 author -").lines.prefix(2) == [
                "edited #1 Buy oat milk (p0)", "  changes: updated #1 at 0.0",
            ])
        #expect(
            await interpreter.handle("edit 2 author @ben").lines.prefix(2) == [
                "edited #2 Fix bike (p1, by Ben Okafor)", "  changes: updated #2 at 0.1",
            ])
    }

    @Test("An edit that changes nothing reports no changes")
    func editWithoutChange() async throws {
        let interpreter = try await interpreter([.milk])
        #expect(
            await interpreter.handle("edit 1 priority 2").lines.prefix(2) == [
                "edited #1 Buy milk (p2, by Ana Lima)", "  changes: none",
            ])
    }

    @Test func move() async throws {
        let interpreter = try await interpreter([.milk, .bike, .report])
        #expect(
            await interpreter.handle("move 2 Work").lines == [
                "moved #2 Fix bike to Work",
                "  changes: moved #2 from 0.0 to 1.0; updated #2 at 1.0",
                "  section 0 \"Home\"",
                "    0.0  #1 Buy milk (p2, by Ana Lima)",
                "  section 1 \"Work\"",
                "    1.0  #2 Fix bike (p1)",
                "    1.1  #3 Write report (p1, by Ben Okafor)",
            ])
    }

    @Test func delete() async throws {
        let interpreter = try await interpreter([.milk, .report])
        #expect(
            await interpreter.handle("delete 1").lines == [
                "deleted #1",
                "  changes: deleted section 0 \"Home\"; deleted #1 from 0.0",
                "  section 0 \"Work\"",
                "    0.0  #3 Write report (p1, by Ben Okafor)",
            ])
        #expect(
            await interpreter.handle("delete 3").lines == [
                "deleted #3", "  changes: deleted section 0 \"Work\"; deleted #3 from 0.0", "  (no to-dos)",
            ])
    }

    @Test func listHelpAndQuit() async throws {
        let interpreter = try await interpreter([.report, .milk])
        let list = [
            "  section 0 \"Home\"", "    0.0  #1 Buy milk (p2, by Ana Lima)", "  section 1 \"Work\"",
            "    1.0  #3 Write report (p1, by Ben Okafor)",
        ]
        #expect(await interpreter.handle("list") == InterpreterReply(list))
        #expect(await interpreter.handle("help") == InterpreterReply(CommandSyntax.helpLines))
        #expect(await interpreter.handle("quit") == InterpreterReply(["bye"], quits: true))
        #expect(await interpreter.handle("") == InterpreterReply([]))
    }

    @Test(
        "Unknown ids get a message and change nothing",
        arguments: ["edit 9 title x", "edit 9 priority 1", "edit 9 author ana", "move 9 Work", "delete 9"])
    func unknownID(line: String) async throws {
        let interpreter = try await interpreter([.milk])
        #expect(await interpreter.handle(line) == InterpreterReply([#"error: no to-do #9; "list" shows them all"#]))
        #expect(interpreter.todos.takeUpdates() == [])
        #expect(interpreter.todos.controller.fetchedObjects.map(\.self) == [.milk])
    }

    @Test("A mistake in a command gets its message")
    func mistake() async throws {
        let interpreter = try await interpreter()
        #expect(
            await interpreter.handle("frob")
                == InterpreterReply([#"error: unknown command "frob"; "help" lists the commands"#]))
        #expect(await interpreter.handle("delete") == InterpreterReply(["error: missing ID; usage: delete ID"]))
    }

    @Test("An unreadable to-do cannot be edited or moved, but can be deleted")
    func unreadableID() async throws {
        let interpreter = try await interpreter([.milk], extra: ["todo.4": #"{"id":4,"text":"old"}"#])
        let message =
            #"error: to-do #4 cannot be read: "todo.4": missing field "title" (written by an older version?); "delete 4" removes it"#
        #expect(await interpreter.handle("edit 4 title New").lines == [message])
        #expect(await interpreter.handle("move 4 Work").lines == [message])
        #expect(await interpreter.handle("delete 4").lines.prefix(2) == ["deleted #4", "  changes: none"])
        #expect(await interpreter.handle("delete 4").lines == [#"error: no to-do #4; "list" shows them all"#])
    }

    @Test("A new to-do never takes the id of an unreadable value")
    func nextIDSkipsUnreadable() async throws {
        let interpreter = try await interpreter([.milk], extra: ["todo.7": "corrupted"])
        #expect(await interpreter.handle("add Home 1 New").lines.first == "added #8 New (p1) to Home")
        #expect(interpreter.todos.repository.store.hasValue(forKey: "todo.7"))
    }
}
