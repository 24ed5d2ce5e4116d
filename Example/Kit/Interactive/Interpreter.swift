import LiveResults

/// Runs the commands of the interactive mode on a ``TodoList``, and answers each line with text.
///
/// A change answers with what it did, the change set it caused, and the list:
///
/// ```text
/// > move 2 Work
/// moved #2 Fix bike to Work
///   changes: moved #2 from 0.0 to 1.0; updated #2 at 1.0
///   section 0 "Home"
///   …
/// ```
///
/// A to-do whose author is not cached yet is shown once the ``TodoList/authors`` association has
/// fetched it: the reply then also says which authors were requested, and which to-dos got one.
///
/// A line that is not a command, or names an id with no readable to-do, answers with `error: ` and
/// a message, and changes nothing.
public struct Interpreter: Sendable {
    /// The list the commands change.
    public let todos: TodoList

    /// Creates an interpreter for `todos`, which should be loaded.
    public init(todos: TodoList) {
        self.todos = todos
    }

    /// Parses and runs one line.
    ///
    /// - Returns: The lines to print, and whether the session ends.
    public func handle(_ line: String) async -> InterpreterReply {
        do {
            guard let command = try Command.parse(line) else { return InterpreterReply([]) }
            return try await run(command)
        } catch {
            return InterpreterReply(["error: \(error)"])
        }
    }

    /// Runs one command.
    ///
    /// - Throws: ``TodoListError`` if it names an id with no readable to-do, or the store fails.
    public func run(_ command: Command) async throws(TodoListError) -> InterpreterReply {
        switch command {
        case .add(let title, let project, let priority, let authorID):
            let item = try todos.add(title: title, project: project, priority: priority, authorID: authorID)
            return try await changed { "added \($0.describe(item)) to \(project)" }
        case .edit(let id, let edit):
            let item = try todos.edit(id: id) { apply(edit, to: &$0) }
            return try await changed { "edited \($0.describe(item))" }
        case .move(let id, let project):
            let item = try todos.edit(id: id) { $0.project = project }
            return try await changed { _ in "moved #\(id) \(item.title) to \(project)" }
        case .delete(let id):
            try todos.delete(id: id)
            return try await changed { _ in "deleted #\(id)" }
        case .list:
            return InterpreterReply(TodoFormatter.lines(for: try await todos.listing(), showsChanges: false))
        case .help:
            return InterpreterReply(CommandSyntax.helpLines)
        case .quit:
            return InterpreterReply(["bye"], quits: true)
        }
    }

    private func apply(_ edit: TodoEdit, to item: inout TodoItem) {
        switch edit {
        case .title(let title): item.title = title
        case .priority(let priority): item.priority = priority
        case .author(let authorID): item.authorID = authorID
        }
    }

    /// The summary of the listing, then the change set the command caused, then the list.
    private func changed(_ summary: (TodoListing) -> String) async throws(TodoListError) -> InterpreterReply {
        let listing = try await todos.listing()
        return InterpreterReply([summary(listing)] + TodoFormatter.lines(for: listing))
    }
}
