import Foundation
import LiveResults
import LiveResultsExampleKit
import Testing

@Suite("Interactive interpreter")
struct InterpreterTests {
    /// An interpreter over a loaded list holding `items`, and `extra` raw values, with pages of `pageSize`.
    func interpreter(
        _ items: [TodoItem] = [], extra: [String: String] = [:], pageSize: Int = TodoList.defaultPageSize
    ) async throws -> Interpreter {
        let store = InMemoryKeyValueStore()
        _ = try repository(store, saving: items)
        for (key, value) in extra {
            try store.set(value, forKey: key)
        }
        _ = try repository(store, saving: ScriptedDemo.authors)
        let todos = TodoList(store: store, pageSize: pageSize)
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
                "  shown at once: updated #1 at 0.1",
                "  section 0 \"Home\"",
                "    0.0  #2 Fix bike (p1)",
                "    0.1  #1 Buy oat milk (p2, by Ana Lima)",
            ])
        #expect(
            await interpreter.handle("edit 1 priority 0").lines == [
                "edited #1 Buy oat milk (p0, by Ana Lima)",
                "  shown at once: moved #1 from 0.1 to 0.0; updated #1 at 0.0",
                "  section 0 \"Home\"",
                "    0.0  #1 Buy oat milk (p0, by Ana Lima)",
                "    0.1  #2 Fix bike (p1)",
            ])
        #expect(
            await interpreter.handle("edit 1 author -").lines.prefix(2) == [
                "edited #1 Buy oat milk (p0)", "  shown at once: updated #1 at 0.0",
            ])
        #expect(
            await interpreter.handle("edit 2 author @ben").lines.prefix(2) == [
                "edited #2 Fix bike (p1, by Ben Okafor)", "  shown at once: updated #2 at 0.1",
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
                "  shown at once: moved #2 from 0.0 to 1.0; updated #2 at 1.0",
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

    /// `Task 1`… in project P, priority 1: one section, in id order.
    static func tasks(_ ids: ClosedRange<Int>) -> [TodoItem] {
        ids.map { TodoItem(id: $0, title: "Task \($0)", project: "P", priority: 1) }
    }

    @Test("more loads the next page and answers with it; list and every list say while there is a next page")
    func more() async throws {
        let interpreter = try await interpreter(Self.tasks(1...5), pageSize: 2)
        let hint = #"showing 2 to-dos; type "more" for the next page"#
        #expect(
            await interpreter.handle("list").lines == [
                #"  section 0 "P""#, "    0.0  #1 Task 1 (p1)", "    0.1  #2 Task 2 (p1)", hint,
            ])
        #expect(
            await interpreter.handle("more").lines == [
                "loaded page 2: 2 more to-dos",
                "  changes: inserted #3 at 0.2; inserted #4 at 0.3",
                #"  section 0 "P""#,
                "    0.0  #1 Task 1 (p1)",
                "    0.1  #2 Task 2 (p1)",
                "    0.2  #3 Task 3 (p1)",
                "    0.3  #4 Task 4 (p1)",
                #"showing 4 to-dos; type "more" for the next page"#,
            ])
        #expect(
            await interpreter.handle("more").lines.prefix(2) == [
                "loaded page 3: 1 more to-do, the last page", "  changes: inserted #5 at 0.4",
            ])
        let all = [
            #"  section 0 "P""#, "    0.0  #1 Task 1 (p1)", "    0.1  #2 Task 2 (p1)", "    0.2  #3 Task 3 (p1)",
            "    0.3  #4 Task 4 (p1)", "    0.4  #5 Task 5 (p1)",
        ]
        #expect(await interpreter.handle("more").lines == ["all to-dos are shown", "  changes: none"] + all)
        #expect(await interpreter.handle("list").lines == all)
    }

    @Test("A page whose values cannot be read brings nothing new, and the pages go on")
    func moreWithNothingNew() async throws {
        let interpreter = try await interpreter(
            Self.tasks(1...2) + Self.tasks(5...5), extra: ["todo.3": "corrupted", "todo.4": "{}"], pageSize: 2)
        #expect(
            await interpreter.handle("more").lines == [
                "loaded page 2: nothing new",
                #"  skipped "todo.3": the value is not JSON (corrupted?)"#,
                #"  skipped "todo.4": missing field "id" (written by an older version?)"#,
                "  changes: none",
                #"  section 0 "P""#,
                "    0.0  #1 Task 1 (p1)",
                "    0.1  #2 Task 2 (p1)",
                #"showing 2 to-dos; type "more" for the next page"#,
            ])
        #expect(await interpreter.handle("more").lines.first == "loaded page 3: 1 more to-do, the last page")
    }

    @Test("generate adds to-dos in one change set, titled by id, priorities cycling, to Inbox unless told")
    func generate() async throws {
        let interpreter = try await interpreter([.milk])
        #expect(
            await interpreter.handle("generate 3 Later").lines == [
                "generated 3 to-dos in Later: #2 to #4",
                #"  changes: inserted section 1 "Later"; inserted #2 at 1.0; inserted #3 at 1.1; inserted #4 at 1.2"#,
                #"  section 0 "Home""#,
                "    0.0  #1 Buy milk (p2, by Ana Lima)",
                #"  section 1 "Later""#,
                "    1.0  #2 Task 2 (p1)",
                "    1.1  #3 Task 3 (p2)",
                "    1.2  #4 Task 4 (p3)",
            ])
        #expect(
            await interpreter.handle("generate 1").lines.prefix(2) == [
                "generated 1 to-do in Inbox: #5", #"  changes: inserted section 1 "Inbox"; inserted #5 at 1.0"#,
            ])
    }

    @Test("A long reply is cut short after 20 changes and 20 to-dos; list shows them all")
    func longReplies() async throws {
        let interpreter = try await interpreter()
        let reply = await interpreter.handle("generate 30 Later").lines
        let changes = try #require(reply.dropFirst().first)
        #expect(changes.hasPrefix(#"  changes: inserted section 0 "Later"; inserted #1 at 0.0; inserted #10 at 0.1; "#))
        // Titles sort as text: Task 1, Task 10, Task 13… at priority 1.
        #expect(changes.hasSuffix("; inserted #5 at 0.18; … 11 more changes"))  // 31 changes
        #expect(reply.count == 24)  // what it did, the changes, a section, 20 to-dos, what is left out
        #expect(reply.last == "  … 10 to-dos not listed here")
        #expect(reply.dropLast().last == "    0.19  #8 Task 8 (p2)")

        let list = await interpreter.handle("list").lines
        #expect(list.count == 31)
        #expect(list.last == "    0.29  #9 Task 9 (p3)")
    }

    @Test(
        "A generate that cannot be done gets its message and changes nothing",
        arguments: [
            ("generate 0", "error: COUNT must be from 1 to 10000, not 0; usage: generate COUNT [PROJECT]"),
            ("generate x", #"error: COUNT must be a whole number, not "x"; usage: generate COUNT [PROJECT]"#),
            ("generate", "error: missing COUNT; usage: generate COUNT [PROJECT]"),
        ])
    func generateMistake(line: String, message: String) async throws {
        let interpreter = try await interpreter([.milk])
        #expect(await interpreter.handle(line) == InterpreterReply([message]))
        #expect(interpreter.todos.repository.storedIDs() == [1])
        #expect(interpreter.todos.takeUpdates() == [])
    }
}
