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
}
