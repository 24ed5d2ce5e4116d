/// What the ``Interpreter`` answers to a line.
public struct InterpreterReply: Equatable, Sendable {
    /// The lines to print.
    public var lines: [String]
    /// Whether the session ends.
    public var quits: Bool

    /// Creates a reply.
    public init(_ lines: [String], quits: Bool = false) {
        self.lines = lines
        self.quits = quits
    }
}
