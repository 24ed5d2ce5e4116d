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
/// The list holds the to-dos of the pages loaded, and those written since. `more` loads the next page
/// and answers as a change does; while there is a next page, every list ends with
/// `showing 20 to-dos; type "more" for the next page`. A reply to a change, `more` included, lists the
/// first ``maximumRows`` to-dos and says how many it leaves out; `list` lists them all.
///
/// `collapse PROJECT` shows a project as its header, `expand PROJECT` its to-dos again, each answering
/// with the change set of what the list displays; a project not shown yet takes that state when it
/// appears. `pause` keeps the list as it is: changes are still saved and answered, but their replies
/// say the changes are held and show the list as it was at the pause, until `resume` answers with the
/// one change set that catches up with all of them:
///
/// ```text
/// > resume
/// resumed: one change set catches up with the pause
///   changes: deleted #3 from 0.1; inserted #4 at 0.1
///   …
/// ```
///
/// `edit` and `move` show their change at once, then save it; `fail-next-write` makes the next write
/// fail, and the reply shows the edit rolled back:
///
/// ```text
/// > edit 2 title Fix the bike
/// edit of #2 not saved
///   shown at once: updated #2 at 0.0
///   write failed: simulated failure; rolled back: updated #2 at 0.0
///   …
/// ```
///
/// A line that is not a command, or names an id with no readable to-do, answers with `error: ` and
/// a message, and changes nothing.
public struct Interpreter: Sendable {
    /// How many to-dos the reply to a change shows at most, so that `generate 10000` answers in a page.
    public static let maximumRows = 20

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
        case .generate(let count, let project):
            let items = try todos.generate(count: count, project: project)
            let (first, last) = (items[0].id, items[items.count - 1].id)
            let ids = first == last ? "#\(first)" : "#\(first) to #\(last)"
            return try await changed { _ in "generated \(TodoFormatter.count(count, "to-do")) in \(project): \(ids)" }
        case .edit(let id, let edit):
            return try await editOptimistically(id, "edit") {
                apply(edit, to: &$0)
            } saved: { item, listing in
                "edited \(listing.describe(item))"
            }
        case .move(let id, let project):
            return try await editOptimistically(id, "move") {
                $0.project = project
            } saved: { item, _ in
                "moved #\(id) \(item.title) to \(project)"
            }
        case .delete(let id):
            try todos.delete(id: id)
            return try await changed { _ in "deleted #\(id)" }
        case .list:
            let listing = try await todos.listing()
            return InterpreterReply(TodoFormatter.lines(for: listing, showsChanges: false) + pagingLines(for: listing))
        case .more:
            let changes = try await todos.loadMore()
            return try await changed { _ in describe(loaded: changes) }
        case .collapse(let project):
            todos.display.collapse(project)
            return try await changed { describe(project, collapsed: true, in: $0) }
        case .expand(let project):
            todos.display.expand(project)
            return try await changed { describe(project, collapsed: false, in: $0) }
        case .pause:
            guard !todos.controller.isPaused else { return InterpreterReply([#"already paused; "resume" catches up"#]) }
            todos.controller.pause()
            return InterpreterReply([#"paused: the list stays as it is; changes are held until "resume""#])
        case .resume:
            guard todos.controller.isPaused else { return InterpreterReply(["not paused: nothing to catch up"]) }
            let missed = todos.controller.resume()
            return try await changed { _ in
                missed.isEmpty
                    ? "resumed: nothing changed while paused" : "resumed: one change set catches up with the pause"
            }
        case .failNextWrite:
            todos.failNextWrite()
            return InterpreterReply(["the next write to the store will fail (simulated)"])
        case .help:
            return InterpreterReply(CommandSyntax.helpLines)
        case .quit:
            return InterpreterReply(["bye"], quits: true)
        }
    }

    /// Runs an edit shown at once, then saved. A failed write is answered, not thrown: the reply shows
    /// the edit rolled back, as `edit of #2 not saved` then
    /// `  write failed: simulated failure; rolled back: updated #2 at 0.0`.
    ///
    /// - Parameters:
    ///   - verb: `edit` or `move`, for the reply to a failed write.
    ///   - saved: The reply's first line once the edited to-do is saved.
    private func editOptimistically(
        _ id: Int, _ verb: String, _ change: (inout TodoItem) -> Void,
        saved summary: (TodoItem, TodoListing) -> String
    ) async throws(TodoListError) -> InterpreterReply {
        do throws(TodoListError) {
            let item = try await todos.editOptimistically(id: id, change)
            return try await changed { summary(item, $0) }
        } catch .storeFailed {
            return try await changed { _ in "\(verb) of #\(id) not saved" }
        }
    }

    private func apply(_ edit: TodoEdit, to item: inout TodoItem) {
        switch edit {
        case .title(let title): item.title = title
        case .priority(let priority): item.priority = priority
        case .author(let authorID): item.authorID = authorID
        }
    }

    /// `loaded page 2: 5 more to-dos`, `loaded page 4: 3 more to-dos, the last page`, or
    /// `all to-dos are shown` when there was no page to load.
    private func describe(loaded changes: ChangeSet<TodoItem>?) -> String {
        guard let changes else { return "all to-dos are shown" }
        // The page's to-dos that were shown already (written since the first page) are no insert.
        let added = changes.insertedItems.count
        return "loaded page \(todos.pagesLoaded): "
            + (added == 0 ? "nothing new" : TodoFormatter.count(added, "more to-do"))
            + (todos.hasMore ? "" : ", the last page")
    }

    /// `collapsed Home`, or, for a project the list does not show, `collapsed Garden: not shown yet; it
    /// will be collapsed when it appears`.
    private func describe(_ project: String, collapsed: Bool, in listing: TodoListing) -> String {
        let state = collapsed ? "collapsed" : "expanded"
        guard !listing.sections.contains(where: { $0.name == project }) else { return "\(state) \(project)" }
        return "\(state) \(project): not shown yet; it will be \(state) when it appears"
    }

    /// The summary of the listing, then the change set the command caused, then the list, cut short
    /// after ``maximumRows`` to-dos.
    private func changed(_ summary: (TodoListing) -> String) async throws(TodoListError) -> InterpreterReply {
        let listing = try await todos.listing()
        return InterpreterReply(
            [summary(listing)] + TodoFormatter.lines(for: listing, maximumRows: Self.maximumRows)
                + pagingLines(for: listing))
    }

    /// `showing 20 to-dos; type "more" for the next page` while there is a next page, else nothing.
    func pagingLines(for listing: TodoListing) -> [String] {
        guard todos.hasMore else { return [] }
        return ["showing \(TodoFormatter.count(listing.snapshot.count, "to-do")); type \"more\" for the next page"]
    }
}
