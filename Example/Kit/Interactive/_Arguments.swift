/// The words after a command's name, read from left to right; errors carry the command's usage.
struct _Arguments {
    private var words: ArraySlice<Substring>
    let syntax: CommandSyntax

    init(_ words: ArraySlice<Substring>, of syntax: CommandSyntax) {
        self.words = words
        self.syntax = syntax
    }

    /// The next word.
    mutating func word(_ name: String) throws(CommandError) -> String {
        guard let word = words.popFirst() else { throw .missingArgument(name, usage: syntax.usage) }
        return String(word)
    }

    /// The next word, as a whole number.
    mutating func number(_ name: String) throws(CommandError) -> Int {
        let word = try word(name)
        guard let number = Int(word) else { throw .notANumber(name, value: word, usage: syntax.usage) }
        return number
    }

    /// The next word, as a whole number in `range`.
    mutating func number(_ name: String, in range: ClosedRange<Int>) throws(CommandError) -> Int {
        let number = try number(name)
        guard range.contains(number) else {
            throw .outOfRange(name, value: number, range: range, usage: syntax.usage)
        }
        return number
    }

    /// The next word, if there is one.
    mutating func optionalWord() -> String? {
        words.popFirst().map(String.init)
    }

    /// All the words left, at least one, joined by single spaces.
    mutating func text(_ name: String) throws(CommandError) -> String {
        guard !words.isEmpty else { throw .missingArgument(name, usage: syntax.usage) }
        defer { words = [] }
        return words.joined(separator: " ")
    }

    /// The last word, removed, if it starts with `@`; without the `@`.
    mutating func trailingMention() -> String? {
        guard let last = words.last, last.hasPrefix("@"), last.count > 1 else { return nil }
        words.removeLast()
        return String(last.dropFirst())
    }

    /// Checks that no word is left.
    func end() throws(CommandError) {
        if let extra = words.first { throw .unexpectedArgument(String(extra), usage: syntax.usage) }
    }
}
