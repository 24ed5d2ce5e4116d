/// Why a line is not a command.
public enum CommandError: Error, Equatable, CustomStringConvertible {
    /// The first word is not a command.
    case unknownCommand(String)
    /// An argument is missing.
    case missingArgument(String, usage: String)
    /// An argument that must be a whole number is not.
    case notANumber(String, value: String, usage: String)
    /// A whole number is outside the range the command accepts.
    case outOfRange(String, value: Int, range: ClosedRange<Int>, usage: String)
    /// `edit` names a field it cannot change.
    case unknownField(String, usage: String)
    /// Words are left after the last argument.
    case unexpectedArgument(String, usage: String)

    /// A message for people, with the command's usage when it helps.
    public var description: String {
        switch self {
        case .unknownCommand(let word):
            "unknown command \"\(word)\"; \"help\" lists the commands"
        case .missingArgument(let name, let usage):
            "missing \(name); usage: \(usage)"
        case .notANumber(let name, let value, let usage):
            "\(name) must be a whole number, not \"\(value)\"; usage: \(usage)"
        case .outOfRange(let name, let value, let range, let usage):
            "\(name) must be from \(range.lowerBound) to \(range.upperBound), not \(value); usage: \(usage)"
        case .unknownField(let field, let usage):
            "cannot edit \"\(field)\": edit title, priority or author; usage: \(usage)"
        case .unexpectedArgument(let word, let usage):
            "unexpected \"\(word)\"; usage: \(usage)"
        }
    }
}
