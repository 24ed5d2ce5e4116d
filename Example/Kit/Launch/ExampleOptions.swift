/// The command-line options of `LiveResultsExample`.
public struct ExampleOptions: Equatable, Sendable {
    /// What the example does.
    public enum Mode: Equatable, Sendable {
        /// The scripted demo (the default).
        case demo
        /// Commands read from standard input.
        case interactive
        /// Prints the usage.
        case help
    }

    /// What the example does.
    public var mode: Mode = .demo
    /// The file given with `--store`, if any.
    public var storePath: String?
    /// How many stored to-dos a page of the interactive mode reads: `--page-size`, or the default.
    public var pageSize = TodoList.defaultPageSize

    /// The usage text of `--help`.
    public static let usage = [
        "Usage: swift run LiveResultsExample [--interactive [--page-size N]] [--store PATH]",
        "",
        "A to-do list in a UserDefaults-style store, shown live by a FetchedResultsController,",
        "sectioned by project and sorted by priority, then title.",
        "",
        "  (no option)      runs the scripted demo on a new temporary store, then removes it",
        "  --interactive    reads commands (add, generate, edit, move, delete, list, more, collapse,",
        "                   expand, pause, resume, fail-next-write, quit) from standard input; the to-dos",
        "                   stay in the UserDefaults suite \"\(ExampleApp.defaultSuiteName)\", and the list",
        "                   shown is saved next to its file, to be shown first the next time",
        "  --page-size N    with --interactive: lists the stored to-dos N at a time, \"more\" loading",
        "                   the next N (default \(TodoList.defaultPageSize))",
        "  --store PATH     keeps the to-dos in the property list file PATH instead, the list in PATH.cache",
        "                   (the demo replaces the to-dos in it; --interactive continues from them)",
        "  --help           prints this help",
    ]

    /// Parses the arguments that follow the program's name.
    ///
    /// - Throws: ``UsageError`` for an unknown option, a missing path, a page size that is not a whole
    ///   number of at least 1, a page size for the demo, or an extra argument.
    public init(arguments: [String]) throws(UsageError) {
        var arguments = arguments[...]
        var pageSize: Int?
        while let argument = arguments.popFirst() {
            switch argument {
            case "--interactive", "-i": mode = mode == .help ? .help : .interactive
            case "--help", "-h": mode = .help
            case "--store": storePath = try Self.path(arguments.popFirst())
            case _ where argument.hasPrefix("--store="): storePath = try Self.path(String(argument.dropFirst(8)))
            case "--page-size": pageSize = try Self.pageSize(arguments.popFirst())
            case _ where argument.hasPrefix("--page-size="):
                pageSize = try Self.pageSize(String(argument.dropFirst(12)))
            case _ where argument.hasPrefix("-"): throw UsageError("unknown option \"\(argument)\"")
            default: throw UsageError("unexpected argument \"\(argument)\"")
            }
        }
        guard let pageSize else { return }
        // The demo's pages are part of its script, which prints the same lines on every run.
        guard mode != .demo else { throw UsageError("--page-size is for --interactive; the demo pages its own way") }
        self.pageSize = pageSize
    }

    private static func pageSize(_ value: String?) throws(UsageError) -> Int {
        guard let value, !value.isEmpty, !value.hasPrefix("--") else { throw UsageError("--page-size needs a NUMBER") }
        guard let size = Int(value), size > 0 else {
            throw UsageError("--page-size needs a whole number of at least 1, not \"\(value)\"")
        }
        return size
    }

    private static func path(_ value: String?) throws(UsageError) -> String {
        guard let value, !value.isEmpty, !value.hasPrefix("-") else { throw UsageError("--store needs a PATH") }
        return value
    }
}

/// A command line `LiveResultsExample` does not understand.
public struct UsageError: Error, Equatable, CustomStringConvertible {
    /// What is wrong.
    public var description: String

    /// Creates an error saying `description`.
    public init(_ description: String) {
        self.description = description
    }
}
