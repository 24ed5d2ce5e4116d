/// The name, arguments and purpose of each command: the source of `help` and of usage messages.
public struct CommandSyntax: Sendable {
    /// The first word of the command.
    public var name: String
    /// How to write it, such as `delete ID`.
    public var usage: String
    /// What it does.
    public var summary: String

    /// Every command, in the order `help` lists them.
    public static let all = [
        add, generate, edit, move, delete, list, more, collapse, expand, pause, resume, failNextWrite, help, quit,
    ]

    static let add = CommandSyntax(
        name: "add", usage: "add PROJECT PRIORITY TITLE... [@AUTHOR]", summary: "adds a to-do (priority 1 comes first)")
    static let generate = CommandSyntax(
        name: "generate", usage: "generate COUNT [PROJECT]",
        summary: "adds COUNT to-dos in one write (\"Task N\", priorities 1, 2, 3, 1…) to PROJECT, or to Inbox")
    static let edit = CommandSyntax(
        name: "edit", usage: "edit ID title TITLE... | edit ID priority PRIORITY | edit ID author AUTHOR|-",
        summary: "changes a to-do's title, priority or author (- for none): shown at once, then saved")
    static let move = CommandSyntax(
        name: "move", usage: "move ID PROJECT", summary: "moves a to-do to another project: shown at once, then saved")
    static let delete = CommandSyntax(name: "delete", usage: "delete ID", summary: "deletes a to-do")
    static let list = CommandSyntax(
        name: "list", usage: "list",
        summary: "shows every to-do loaded (other replies show the first \(Interpreter.maximumRows))")
    static let more = CommandSyntax(name: "more", usage: "more", summary: "loads the next page of to-dos")
    static let collapse = CommandSyntax(
        name: "collapse", usage: "collapse PROJECT",
        summary: "shows a project as its header only, now or when it appears")
    static let expand = CommandSyntax(
        name: "expand", usage: "expand PROJECT", summary: "shows the to-dos of a collapsed project again")
    static let pause = CommandSyntax(
        name: "pause", usage: "pause",
        summary: "keeps the list as it is: changes are still saved, but held back until resume")
    static let resume = CommandSyntax(
        name: "resume", usage: "resume", summary: "shows what changed while paused, in one change set")
    static let failNextWrite = CommandSyntax(
        name: "fail-next-write", usage: "fail-next-write",
        summary: "makes the next write to the store fail, as a full disk would: an edit or move is rolled back")
    static let help = CommandSyntax(name: "help", usage: "help", summary: "shows this help")
    static let quit = CommandSyntax(
        name: "quit", usage: "quit", summary: "leaves (so does the end of the input); every change is already saved")

    /// The `help` text: each command's usage, then what it does.
    public static var helpLines: [String] {
        ["Commands:"] + all.flatMap { ["  \($0.usage)", "      \($0.summary)"] }
    }
}
