import LiveResultsExampleKit
import Testing

@Suite("Interactive session")
struct InteractiveSessionTests {
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
        _ = try repository(store, saving: [.milk])
        try store.set("oops", forKey: "todo.2")
        let console = FakeConsole(input: ["list"])
        var prompts = 0
        try await InteractiveSession.run(
            store: store, input: console.console.readLine, output: console.console.print, prompt: { prompts += 1 })
        #expect(
            console.output == [
                "1 to-do in 1 project:",
                "  skipped \"todo.2\": the value is not JSON (corrupted?)",
                "  section 0 \"Home\"",
                "    0.0  #1 Buy milk (p2, by ana)",
                "Type \"help\" for the commands.",
                "  section 0 \"Home\"",
                "    0.0  #1 Buy milk (p2, by ana)",
            ])
        #expect(prompts == 2)
    }
}
