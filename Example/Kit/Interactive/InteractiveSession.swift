/// The interactive mode: reads commands line by line until `quit` or the end of the input.
public enum InteractiveSession {
    /// Opens the to-dos in `store`, then answers every line of `input`.
    ///
    /// - Parameters:
    ///   - store: Where the to-dos are kept.
    ///   - input: The next line, or `nil` at the end of the input (such as `readLine()`).
    ///   - output: Receives each line of output.
    ///   - prompt: Called before each line is read, such as to print `> ` on a terminal.
    ///   - echoesInput: Whether to print each line read after `> `, so that a transcript of piped
    ///     input shows the commands.
    /// - Throws: A store error while loading; errors in commands are answered, not thrown.
    public static func run(
        store: any KeyValueStore,
        input: () -> String?,
        output: (String) -> Void,
        prompt: () -> Void = {},
        echoesInput: Bool = false
    ) async throws {
        let todos = TodoList(store: store)
        try await todos.load()
        welcomeLines(todos).forEach(output)
        let interpreter = Interpreter(todos: todos)
        while true {
            prompt()
            guard let line = input() else { return }
            if echoesInput { output("> \(line)") }
            let reply = interpreter.handle(line)
            reply.lines.forEach(output)
            if reply.quits { return }
        }
    }

    /// What the session prints first: how many to-dos, the values skipped, the list.
    static func welcomeLines(_ todos: TodoList) -> [String] {
        let snapshot = todos.controller.snapshot
        let notes = TodoFormatter.notes(in: todos.takeUpdates())
        return ["\(TodoFormatter.summary(of: snapshot)):"] + notes
            + TodoFormatter.lines(for: snapshot) + ["Type \"help\" for the commands."]
    }
}
