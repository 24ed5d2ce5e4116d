import Foundation

/// A fenced code block of a Markdown document, with the snippet mark written right before it.
struct CodeBlock {
    /// The document's absolute path.
    var document: String
    /// The language after the opening fence (`swift`, `text`, …), or `""`.
    var language: String
    /// The 1-based line of the opening fence.
    var fenceLine: Int
    /// The code, without the fence lines and without the indentation of the fence.
    var lines: [String]
    /// The mark in an HTML comment on the line before the fence, if any.
    var mark: SnippetMark?

    /// The 1-based line of the block's first line of code.
    var firstLine: Int { fenceLine + 1 }
}

/// How the snippet check treats a ```` ```swift ```` block: the `<!-- snippet: … -->` comment before it.
///
/// - `skip REASON`: not compiled (a `Package.swift` fragment, for instance). The reason is required.
/// - `continue`: the block continues the previous compiled block of the same document: one program.
/// - `expect-output`: the program is run, and its standard output must be exactly the lines that its
///   `// Prints "…"` comments show, in order.
///
/// - `prelude`: the block is also part of the prelude, the declarations that every other program may
///   assume (the *Getting started* article's entity, store and controller). A prelude block holds
///   declarations only: it is compiled as a file of its own beside each program's `main.swift`.
///
/// The words combine: `<!-- snippet: continue, expect-output -->`, `<!-- snippet: continue, prelude -->`.
struct SnippetMark {
    var skipReason: String?
    var continues = false
    var expectsOutput = false
    var isPrelude = false
    /// The 1-based line of the comment.
    var line: Int
}

/// The prefix of a snippet mark.
let markPrefix = "<!-- snippet:"

/// The fenced code blocks of a Markdown document, in order, with their marks.
///
/// A fence is three or more backticks or tildes, indented by at most three spaces beyond the
/// enclosing list item (any indentation is accepted; the code loses as much as the fence has). A
/// block ends at a fence of the same character at least as long. A `<!-- snippet: … -->` comment
/// marks the block whose fence is on the next non-blank line; a mark followed by anything else is an
/// error.
func codeBlocks(inDocument path: String) throws -> [CodeBlock] {
    let lines = try readLines(path)
    var blocks: [CodeBlock] = []
    var pendingMark: SnippetMark?
    var index = 0
    while index < lines.count {
        let line = lines[index]
        let trimmed = line.trimmingCharacters(in: .whitespaces)
        if trimmed.hasPrefix(markPrefix) {
            if let mark = pendingMark {
                throw ToolError("\(path):\(mark.line): error: a snippet mark must be followed by a code block")
            }
            pendingMark = try parseMark(trimmed, line: index + 1, document: path)
            index += 1
            continue
        }
        if let fence = openingFence(line) {
            var end = index + 1
            var code: [String] = []
            while end < lines.count, !isClosingFence(lines[end], for: fence) {
                code.append(removingIndentation(fence.indentation, from: lines[end]))
                end += 1
            }
            if end == lines.count {
                throw ToolError("\(path):\(index + 1): error: this code block is never closed")
            }
            blocks.append(
                CodeBlock(
                    document: path, language: fence.language, fenceLine: index + 1, lines: code, mark: pendingMark))
            pendingMark = nil
            index = end + 1
            continue
        }
        if let mark = pendingMark, !trimmed.isEmpty {
            throw ToolError("\(path):\(mark.line): error: a snippet mark must be followed by a code block")
        }
        index += 1
    }
    if let mark = pendingMark {
        throw ToolError("\(path):\(mark.line): error: a snippet mark must be followed by a code block")
    }
    return blocks
}

/// An opening code fence.
struct Fence {
    var character: Character
    var length: Int
    var indentation: Int
    var language: String
}

/// The fence that `line` opens, if it opens one.
func openingFence(_ line: String) -> Fence? {
    let indentation = line.prefix { $0 == " " }.count
    let rest = line.dropFirst(indentation)
    guard let character = rest.first, character == "`" || character == "~" else { return nil }
    let length = rest.prefix { $0 == character }.count
    guard length >= 3 else { return nil }
    let info = rest.dropFirst(length).trimmingCharacters(in: .whitespaces)
    if character == "`" && info.contains("`") { return nil }
    let language = String(info.prefix { !$0.isWhitespace && $0 != "{" })
    return Fence(character: character, length: length, indentation: indentation, language: language)
}

/// Whether `line` closes a block opened by `fence`.
func isClosingFence(_ line: String, for fence: Fence) -> Bool {
    let trimmed = line.trimmingCharacters(in: .whitespaces)
    return trimmed.count >= fence.length && trimmed.allSatisfy { $0 == fence.character }
}

/// `line` without up to `count` leading spaces.
func removingIndentation(_ count: Int, from line: String) -> String {
    String(line.dropFirst(min(count, line.prefix { $0 == " " }.count)))
}

/// Parses `<!-- snippet: WORDS -->`.
func parseMark(_ comment: String, line: Int, document: String) throws -> SnippetMark {
    guard comment.hasSuffix("-->") else {
        throw ToolError("\(document):\(line): error: a snippet mark fits on one line: <!-- snippet: … -->")
    }
    let body = comment.dropFirst(markPrefix.count).dropLast(3).trimmingCharacters(in: .whitespaces)
    var mark = SnippetMark(line: line)
    if body == "skip" || body.hasPrefix("skip ") || body.hasPrefix("skip:") {
        let reason = body.dropFirst(4).trimmingCharacters(in: CharacterSet(charactersIn: " :—-"))
        guard !reason.isEmpty else {
            throw ToolError(
                "\(document):\(line): error: say why the block is not compiled: <!-- snippet: skip REASON -->")
        }
        mark.skipReason = reason
        return mark
    }
    let words = body.split(whereSeparator: { $0 == "," || $0 == " " }).map(String.init)
    guard !words.isEmpty else {
        throw ToolError("\(document):\(line): error: an empty snippet mark")
    }
    for word in words {
        switch word {
        case "continue": mark.continues = true
        case "expect-output": mark.expectsOutput = true
        case "prelude": mark.isPrelude = true
        default:
            throw ToolError(
                "\(document):\(line): error: unknown snippet mark \"\(word)\" (known: skip REASON, continue, expect-output, prelude)"
            )
        }
    }
    return mark
}

/// The start of a `// Prints "…"` comment (any case).
let printsPattern = #"//\s*prints\s+""#

/// The text of a `// Prints "…"` comment on a line of code, if it has one: the output the line's
/// statement prints, as the document shows it.
func printedText(onLine line: String) -> String? {
    guard let range = line.range(of: printsPattern, options: [.regularExpression, .caseInsensitive]) else {
        return nil
    }
    let rest = line[range.upperBound...]
    guard let close = rest.lastIndex(of: "\""), rest[rest.index(after: close)...].allSatisfy(\.isWhitespace) else {
        return nil
    }
    return String(rest[..<close])
}
