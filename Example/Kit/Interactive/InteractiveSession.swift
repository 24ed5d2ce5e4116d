import LiveResults

/// The interactive mode: reads commands line by line until `quit` or the end of the input.
public enum InteractiveSession {
    /// Opens the to-dos in `store`, then answers every line of `input`.
    ///
    /// With a `resultsStore`, the list opens with the to-dos saved there by the last session, and says
    /// so (`showing 3 to-dos saved 2026-11-24 10:00 (refreshing…)`), then with what reading the store
    /// changed (`refreshed from the store: …`). When the session ends, it reads the store once more,
    /// which saves the list as it is for the next session: the list saves what it shows after every
    /// fetch and page, not after every change.
    ///
    /// - Parameters:
    ///   - store: Where the to-dos are kept.
    ///   - pageSize: How many stored to-dos a page reads: the list opens with the first page, and
    ///     `more` loads the next.
    ///   - resultsStore: Where the list saves what it shows, for the next session; none by default.
    ///   - input: The next line, or `nil` at the end of the input (such as `readLine()`).
    ///   - output: Receives each line of output.
    ///   - prompt: Called before each line is read, such as to print `> ` on a terminal.
    ///   - echoesInput: Whether to print each line read after `> `, so that a transcript of piped
    ///     input shows the commands.
    /// - Throws: A store error while loading; errors in commands are answered, not thrown.
    public static func run(
        store: any KeyValueStore,
        pageSize: Int = TodoList.defaultPageSize,
        resultsStore: (any ResultsStore)? = nil,
        input: () -> String?,
        output: (String) -> Void,
        prompt: () -> Void = {},
        echoesInput: Bool = false
    ) async throws {
        let todos = TodoList(store: store, pageSize: pageSize, resultsStore: resultsStore)
        try await todos.load()
        try seedAuthors(todos)
        let interpreter = Interpreter(todos: todos)
        try await welcomeLines(interpreter).forEach(output)
        while true {
            prompt()
            guard let line = input() else { break }
            if echoesInput { output("> \(line)") }
            let reply = await interpreter.handle(line)
            reply.lines.forEach(output)
            if reply.quits { break }
        }
        // Saved to-dos are the list as its last fetch or page showed it: a refetch saves it as it is now.
        if resultsStore != nil { try await todos.load() }
    }

    /// Stores the demo's authors if the store has no author, so that `@ana` and `@ben` have names.
    static func seedAuthors(_ todos: TodoList) throws {
        guard todos.authorRepository.storedIDs().isEmpty else { return }
        try ScriptedDemo.authors.forEach(todos.authorRepository.save)
    }

    /// What the session prints first: how many to-dos, the values skipped, the list of the first
    /// page, whether there are more, the authors.
    static func welcomeLines(_ interpreter: Interpreter) async throws -> [String] {
        let todos = interpreter.todos
        let listing = try await todos.listing()
        let authors = todos.authorRepository.fetchAll().map { "@\($0.id) \($0.name)" }.joined(separator: ", ")
        return ["\(TodoFormatter.summary(of: listing.snapshot)):"]
            + TodoFormatter.lines(for: listing, showsChanges: false) + interpreter.pagingLines(for: listing)
            + ["Authors: \(authors); any other @id shows as an unknown author.", "Type \"help\" for the commands."]
    }
}
