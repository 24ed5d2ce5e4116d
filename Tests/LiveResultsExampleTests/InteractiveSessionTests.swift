import LiveResultsExampleKit
import Testing

@Suite("Interactive session")
struct InteractiveSessionTests {
    /// The authors a session stores in a store that has none, as it lists them.
    static let authorsLine = "Authors: @ana Ana Lima, @ben Ben Okafor; any other @id shows as an unknown author."

    @Test("Lines are answered until quit; the rest of the input is not read")
    func untilQuit() async throws {
        let console = FakeConsole(input: ["add Home 2 Buy milk", "", "quit", "add Home 1 Never"])
        let store = InMemoryKeyValueStore()
        try await InteractiveSession.run(
            store: store, input: console.console.readLine, output: console.console.print, echoesInput: true)
        #expect(
            console.output == [
                "0 to-dos in 0 projects:",
                "  (no to-dos)",
                Self.authorsLine,
                "Type \"help\" for the commands.",
                "> add Home 2 Buy milk",
                "added #1 Buy milk (p2) to Home",
                "  changes: inserted section 0 \"Home\"; inserted #1 at 0.0",
                "  section 0 \"Home\"",
                "    0.0  #1 Buy milk (p2)",
                "> ",
                "> quit",
                "bye",
            ])
        #expect(store.keys(withPrefix: "todo.") == ["todo.1"])
    }

    @Test("The end of the input ends the session; unreadable values are reported when it opens")
    func endOfInput() async throws {
        let store = InMemoryKeyValueStore()
        _ = try repository(store, saving: [TodoItem.milk])
        try store.set("oops", forKey: "todo.2")
        let console = FakeConsole(input: ["list"])
        var prompts = 0
        try await InteractiveSession.run(
            store: store, input: console.console.readLine, output: console.console.print, prompt: { prompts += 1 })
        #expect(
            console.output == [
                "1 to-do in 1 project:",
                "  skipped \"todo.2\": the value is not JSON (corrupted?)",
                "  authors requested in one batch: ana",
                "  authors arrived: updated #1 at 0.0",
                "  section 0 \"Home\"",
                "    0.0  #1 Buy milk (p2, by Ana Lima)",
                Self.authorsLine,
                "Type \"help\" for the commands.",
                "  section 0 \"Home\"",
                "    0.0  #1 Buy milk (p2, by Ana Lima)",
            ])
        #expect(prompts == 2)
    }

    @Test("Piped commands page through the store with more; generated to-dos are shown at once, whatever the pages")
    func paging() async throws {
        let store = InMemoryKeyValueStore()
        _ = try repository(
            store, saving: (1...3).map { TodoItem(id: $0, title: "Task \($0)", project: "P", priority: 1) })
        let console = FakeConsole(input: ["generate 2 Later", "more", "more", "more"])
        try await InteractiveSession.run(
            store: store, pageSize: 2, input: console.console.readLine, output: console.console.print,
            echoesInput: true)
        let all = [
            #"  section 0 "Later""#, "    0.0  #4 Task 4 (p1)", "    0.1  #5 Task 5 (p2)", #"  section 1 "P""#,
            "    1.0  #1 Task 1 (p1)", "    1.1  #2 Task 2 (p1)", "    1.2  #3 Task 3 (p1)",
        ]
        #expect(
            console.output == [
                "2 to-dos in 1 project:",
                #"  section 0 "P""#,
                "    0.0  #1 Task 1 (p1)",
                "    0.1  #2 Task 2 (p1)",
                #"showing 2 to-dos; type "more" for the next page"#,
                Self.authorsLine,
                #"Type "help" for the commands."#,
                "> generate 2 Later",
                "generated 2 to-dos in Later: #4 to #5",
                #"  changes: inserted section 0 "Later"; inserted #4 at 0.0; inserted #5 at 0.1"#,
                #"  section 0 "Later""#,
                "    0.0  #4 Task 4 (p1)",
                "    0.1  #5 Task 5 (p2)",
                #"  section 1 "P""#,
                "    1.0  #1 Task 1 (p1)",
                "    1.1  #2 Task 2 (p1)",
                #"showing 4 to-dos; type "more" for the next page"#,
                // Stored ids 3 and 4: #4 is shown already.
                "> more",
                "loaded page 2: 1 more to-do",
                "  changes: inserted #3 at 1.2",
            ] + all + [
                #"showing 5 to-dos; type "more" for the next page"#,
                // Stored id 5, the last.
                "> more",
                "loaded page 3: nothing new, the last page",
                "  changes: none",
            ] + all + [
                "> more",
                "all to-dos are shown",
                "  changes: none",
            ] + all)
    }

    @Test("Piped commands pause the list, catch up in one change set on resume, then collapse and expand a project")
    func pauseAndCollapse() async throws {
        let console = FakeConsole(input: [
            "add Home 1 A", "pause", "add Home 2 B", "list", "resume", "collapse Home", "expand Home",
        ])
        try await InteractiveSession.run(
            store: InMemoryKeyValueStore(), input: console.console.readLine, output: console.console.print,
            echoesInput: true)
        let both = [#"  section 0 "Home""#, "    0.0  #1 A (p1)", "    0.1  #2 B (p2)"]
        #expect(
            Array(console.output.dropFirst(4)) == [
                "> add Home 1 A",
                "added #1 A (p1) to Home",
                #"  changes: inserted section 0 "Home"; inserted #1 at 0.0"#,
                #"  section 0 "Home""#,
                "    0.0  #1 A (p1)",
                "> pause",
                #"paused: the list stays as it is; changes are held until "resume""#,
                "> add Home 2 B",
                "added #2 B (p2) to Home",
                #"  changes: held until "resume""#,
                "  paused: the list as it was at the pause",
                #"  section 0 "Home""#,
                "    0.0  #1 A (p1)",
                "> list",
                "  paused: the list as it was at the pause",
                #"  section 0 "Home""#,
                "    0.0  #1 A (p1)",
                "> resume",
                "resumed: one change set catches up with the pause",
                "  changes: inserted #2 at 0.1",
            ] + both + [
                "> collapse Home",
                "collapsed Home",
                #"  changes: updated section 0 "Home"; deleted #1 from 0.0; deleted #2 from 0.1"#,
                #"  section 0 "Home" (collapsed, 2 to-dos hidden)"#,
                "> expand Home",
                "expanded Home",
                #"  changes: updated section 0 "Home"; inserted #1 at 0.0; inserted #2 at 0.1"#,
            ] + both)
    }
}
