/// Where `LiveResultsExample` reads and writes text: the terminal, or a test.
public struct Console {
    /// The next line of input, or `nil` at its end.
    public var readLine: () -> String?
    /// Prints a line to the standard output.
    public var print: (String) -> Void
    /// Prints a line to the standard error.
    public var printError: (String) -> Void
    /// Shows the prompt of the interactive mode.
    public var prompt: () -> Void
    /// Whether the input is a person typing: if not, the interactive mode echoes each command, so
    /// that the output of piped input reads as a transcript.
    public var isTerminal: Bool

    /// Creates a console.
    public init(
        readLine: @escaping () -> String?,
        print: @escaping (String) -> Void,
        printError: @escaping (String) -> Void,
        prompt: @escaping () -> Void = {},
        isTerminal: Bool = false
    ) {
        self.readLine = readLine
        self.print = print
        self.printError = printError
        self.prompt = prompt
        self.isTerminal = isTerminal
    }
}
