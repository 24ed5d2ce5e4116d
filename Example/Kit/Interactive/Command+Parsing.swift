extension Command {
    /// The most to-dos one `generate` stores: enough to page through, few enough to write at once.
    public static let maximumGenerated = 10_000

    /// Parses a line of the interactive mode.
    ///
    /// Words are separated by spaces; a title is every word after the others. A blank line, or one
    /// that starts with `#`, is no command.
    ///
    /// ```swift
    /// try Command.parse("add Home 2 Buy milk @ana")   // .add(title: "Buy milk", project: "Home", priority: 2, authorID: "ana")
    /// ```
    ///
    /// - Returns: The command, or `nil` for a blank line or a comment.
    /// - Throws: ``CommandError`` saying what is wrong.
    public static func parse(_ line: String) throws(CommandError) -> Command? {
        let words = line.split(whereSeparator: \.isWhitespace)
        guard let name = words.first, !name.hasPrefix("#") else { return nil }
        guard let syntax = CommandSyntax.all.first(where: { $0.name == name.lowercased() }) else {
            throw .unknownCommand(String(name))
        }
        var arguments = _Arguments(words.dropFirst(), of: syntax)
        let command = try parse(syntax.name, &arguments)
        try arguments.end()
        return command
    }

    private static func parse(_ name: String, _ arguments: inout _Arguments) throws(CommandError) -> Command {
        switch name {
        case "add":
            let project = try arguments.word("PROJECT")
            let priority = try arguments.number("PRIORITY")
            let author = arguments.trailingMention()
            return .add(title: try arguments.text("TITLE"), project: project, priority: priority, authorID: author)
        case "generate":
            let count = try arguments.number("COUNT", in: 1...maximumGenerated)
            return .generate(count: count, project: arguments.optionalWord() ?? "Inbox")
        case "edit":
            return .edit(id: try arguments.number("ID"), try parseEdit(&arguments))
        case "move":
            return .move(id: try arguments.number("ID"), project: try arguments.word("PROJECT"))
        case "delete":
            return .delete(id: try arguments.number("ID"))
        case "list":
            return .list
        case "more":
            return .more
        case "collapse":
            return .collapse(project: try arguments.word("PROJECT"))
        case "expand":
            return .expand(project: try arguments.word("PROJECT"))
        case "pause":
            return .pause
        case "resume":
            return .resume
        case "fail-next-write":
            return .failNextWrite
        case "help":
            return .help
        case "quit":
            return .quit
        default:
            throw .unknownCommand(name)
        }
    }

    private static func parseEdit(_ arguments: inout _Arguments) throws(CommandError) -> TodoEdit {
        let field = try arguments.word("what to edit (title, priority or author)")
        switch field.lowercased() {
        case "title":
            return .title(try arguments.text("TITLE"))
        case "priority":
            return .priority(try arguments.number("PRIORITY"))
        case "author":
            let author = try arguments.word("AUTHOR")
            return .author(author == "-" ? nil : String(author.trimmingPrefix("@")))
        default:
            throw .unknownField(field, usage: arguments.syntax.usage)
        }
    }
}
