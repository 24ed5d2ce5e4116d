import LiveResults
import LiveResultsExampleKit
import Testing

extension InterpreterTests {
    static let failsNext = "the next write to the store will fail (simulated)"

    @Test("fail-next-write makes the next edit's write fail: the reply shows the edit at once, then rolled back")
    func failedEdit() async throws {
        let interpreter = try await interpreter([.milk, .bike])
        let list = [#"  section 0 "Home""#, "    0.0  #2 Fix bike (p1)", "    0.1  #1 Buy milk (p2, by Ana Lima)"]
        #expect(await interpreter.handle("fail-next-write").lines == [Self.failsNext])
        #expect(
            await interpreter.handle("edit 1 priority 0").lines == [
                "edit of #1 not saved",
                "  shown at once: moved #1 from 0.1 to 0.0; updated #1 at 0.0",
                "  write failed: simulated failure; rolled back: moved #1 from 0.0 to 0.1; updated #1 at 0.1",
            ] + list)
        #expect(try interpreter.todos.stored(1) == .milk)
        #expect(
            await interpreter.handle("edit 1 priority 0").lines.prefix(2) == [
                "edited #1 Buy milk (p0, by Ana Lima)", "  shown at once: moved #1 from 0.1 to 0.0; updated #1 at 0.0",
            ])
    }

    @Test("A failed move is rolled back; a failed add or delete answers with the store's error and changes nothing")
    func failedMoveAddAndDelete() async throws {
        let interpreter = try await interpreter([.milk, .report])
        _ = await interpreter.handle("fail-next-write")
        #expect(
            await interpreter.handle("move 1 Work").lines.prefix(3) == [
                "move of #1 not saved",
                // Home goes with its last to-do, and comes back with it.
                #"  shown at once: deleted section 0 "Home"; moved #1 from 0.0 to 0.1; updated #1 at 0.1"#,
                #"  write failed: simulated failure; rolled back: inserted section 0 "Home"; moved #1 from 0.1 to 0.0; "#
                    + "updated #1 at 0.0",
            ])
        for line in ["add Home 1 Call plumber", "delete 1"] {
            _ = await interpreter.handle("fail-next-write")
            #expect(
                await interpreter.handle(line).lines == ["error: could not save to memory: simulated failure"])
        }
        #expect(interpreter.todos.repository.storedIDs() == [1, 3])
        #expect(interpreter.todos.controller.fetchedObjects.map(\.id) == [1, 3])
    }
}
