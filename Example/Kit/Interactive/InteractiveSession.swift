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
        try seedAuthors(todos)
        try await welcomeLines(todos).forEach(output)
        let interpreter = Interpreter(todos: todos)
        while true {
            prompt()
            guard let line = input() else { return }
            if echoesInput { output("> \(line)") }
            let reply = await interpreter.handle(line)
            reply.lines.forEach(output)
            if reply.quits { return }
        }
    }

    /// Stores the demo's authors if the store has no author, so that `@ana` and `@ben` have names.
    static func seedAuthors(_ todos: TodoList) throws {
        guard todos.authorRepository.storedIDs().isEmpty else { return }
        try ScriptedDemo.authors.forEach(todos.authorRepository.save)
    }

    /// What the session prints first: how many to-dos, the values skipped, the list, the authors.
    static func welcomeLines(_ todos: TodoList) async throws -> [String] {
        let listing = try await todos.listing()
        let authors = todos.authorRepository.fetchAll().map { "@\($0.id) \($0.name)" }.joined(separator: ", ")
        return ["\(TodoFormatter.summary(of: listing.snapshot)):"]
            + TodoFormatter.lines(for: listing, showsChanges: false)
            + ["Authors: \(authors); any other @id shows as an unknown author.", "Type \"help\" for the commands."]
    }
}
