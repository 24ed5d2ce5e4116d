/// A command of the interactive mode, parsed from a line with ``parse(_:)``.
public enum Command: Equatable, Sendable {
    /// `add PROJECT PRIORITY TITLE... [@AUTHOR]`
    case add(title: String, project: String, priority: Int, authorID: String?)
    /// `generate COUNT [PROJECT]`, the project `Inbox` if none is given
    case generate(count: Int, project: String)
    /// `edit ID title TITLE...`, `edit ID priority PRIORITY`, `edit ID author AUTHOR|-`: shown at once,
    /// then saved
    case edit(id: Int, TodoEdit)
    /// `move ID PROJECT`: shown at once, then saved
    case move(id: Int, project: String)
    /// `delete ID`
    case delete(id: Int)
    /// `list`
    case list
    /// `more`
    case more
    /// `collapse PROJECT`
    case collapse(project: String)
    /// `expand PROJECT`
    case expand(project: String)
    /// `pause`
    case pause
    /// `resume`
    case resume
    /// `fail-next-write`
    case failNextWrite
    /// `help`
    case help
    /// `quit`
    case quit
}

/// The change an `edit` command makes.
public enum TodoEdit: Equatable, Sendable {
    /// A new title.
    case title(String)
    /// A new priority.
    case priority(Int)
    /// A new author, or none.
    case author(String?)
}
