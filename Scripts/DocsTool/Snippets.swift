import Foundation

/// One program made of a ```` ```swift ```` block and the blocks marked `continue` after it.
struct SnippetGroup: Codable {
    /// The executable target's name, such as `README_36`.
    var name: String
    /// The document's absolute path.
    var document: String
    /// The document's path relative to the repository, for messages.
    var displayPath: String
    /// Each block's first line of code and its lines.
    var blocks: [Block]
    /// Whether the program is run (`expect-output`).
    var runs: Bool
    /// The lines the program prints, as its `// Prints "…"` comments show them, with their lines.
    var expectedOutput: [ExpectedLine]
    /// Whether one of the blocks is marked `prelude`.
    var containsPrelude = false
    /// Whether the program is compiled with the prelude beside it: it neither is part of the prelude nor
    /// declares one of the prelude's types itself.
    var usesPrelude = false
    /// The imports the program gets without writing them: the prelude's, for a program that does not
    /// start with imports of its own (a fragment, read as if pasted after the prelude).
    var implicitImports: [String] = []
    /// Whether the program is a whole document's blocks in order, as a reader who pastes them all gets
    /// it: compiled, never run, and its `// Prints "…"` comments belong to the programs of its blocks.
    var isWholeDocument = false

    struct Block: Codable {
        var firstLine: Int
        var lines: [String]
    }

    struct ExpectedLine: Codable {
        var line: Int
        var text: String
    }

    /// Whether a 1-based document line is inside one of the group's blocks.
    func contains(line: Int) -> Bool {
        blocks.contains { line >= $0.firstLine && line < $0.firstLine + $0.lines.count }
    }

    /// The group's code as the document shows it, each line numbered with its document line.
    var numberedListing: String {
        blocks.map { block in
            block.lines.enumerated().map { offset, text in
                let number = String(block.firstLine + offset)
                return String(repeating: " ", count: max(0, 5 - number.count)) + number + " | " + text
            }.joined(separator: "\n")
        }.joined(separator: "\n  ... |\n")
    }
}

/// The files under `Scripts/Snippets/` that become modules of the generated package: the stand-in for
/// the UIKit API that snippets for Apple platforms use.
let supportModules = [
    (name: "UIKit", file: "UIKit.swift")
]

/// The documents that are also compiled as one program, every block in order with nothing added: the
/// front page, whose reader pastes its blocks one after another.
let documentsCompiledWhole: Set<String> = ["README.md"]

/// The file of the prelude in each program that uses it.
let preludeFileName = "Prelude.swift"

/// The manifest's file name inside the generated package.
let manifestName = "snippets.json"

/// Collects the snippet groups of `documents` and writes a package at `package` with one executable
/// target per group, depending on the repository's library by path.
func generateSnippets(repository: String, package: String, documents: [String]) throws {
    let repository = absolutePath(repository)
    let package = absolutePath(package)
    var groups: [SnippetGroup] = []
    var wholeDocuments: [SnippetGroup] = []
    var preludeBlocks: [(group: SnippetGroup, block: SnippetGroup.Block)] = []
    var skipped = 0
    var prefixes = Set<String>()
    for document in documents.map(absolutePath) {
        let displayPath = relativePath(document, to: repository)
        // The file's name, or its whole path when another document has the same name.
        var prefix = moduleNamePrefix(for: (displayPath as NSString).lastPathComponent)
        if !prefixes.insert(prefix).inserted {
            prefix = moduleNamePrefix(for: displayPath)
            guard prefixes.insert(prefix).inserted else {
                throw ToolError("error: \(displayPath) is given twice")
            }
        }
        for block in try codeBlocks(inDocument: document) {
            let mark = block.mark
            guard block.language == "swift" else {
                if let mark {
                    throw ToolError(
                        "\(displayPath):\(mark.line): error: snippet marks apply to ```swift blocks; this one is \"\(block.language)\""
                    )
                }
                continue
            }
            if mark?.skipReason != nil {
                skipped += 1
                continue
            }
            let expected = try expectedOutput(of: block, displayPath: displayPath)
            if documentsCompiledWhole.contains(displayPath) {
                if wholeDocuments.last?.document != document {
                    wholeDocuments.append(
                        SnippetGroup(
                            name: "\(prefix)_whole", document: document, displayPath: displayPath, blocks: [],
                            runs: false, expectedOutput: [], isWholeDocument: true))
                }
                wholeDocuments[wholeDocuments.count - 1].blocks.append(
                    .init(firstLine: block.firstLine, lines: block.lines))
            }
            if mark?.continues == true {
                guard let last = groups.last, last.document == document else {
                    throw ToolError(
                        "\(displayPath):\(block.fenceLine): error: nothing to continue: no compiled ```swift block before this one in the document"
                    )
                }
                groups[groups.count - 1].blocks.append(.init(firstLine: block.firstLine, lines: block.lines))
                groups[groups.count - 1].expectedOutput += expected
                if mark?.expectsOutput == true { groups[groups.count - 1].runs = true }
                if mark?.isPrelude == true { groups[groups.count - 1].containsPrelude = true }
            } else {
                groups.append(
                    SnippetGroup(
                        name: "\(prefix)_\(block.firstLine)",
                        document: document,
                        displayPath: displayPath,
                        blocks: [.init(firstLine: block.firstLine, lines: block.lines)],
                        runs: mark?.expectsOutput == true,
                        expectedOutput: expected,
                        containsPrelude: mark?.isPrelude == true
                    ))
            }
            if mark?.isPrelude == true {
                preludeBlocks.append((groups[groups.count - 1], .init(firstLine: block.firstLine, lines: block.lines)))
            }
        }
    }
    let prelude = try Prelude(preludeBlocks)
    for index in groups.indices {
        try prelude.configure(&groups[index])
    }
    for group in groups {
        let place = "\(group.displayPath):\(group.blocks[0].firstLine - 1)"
        if group.runs && group.expectedOutput.isEmpty {
            throw ToolError("\(place): error: marked expect-output, but no line has a // Prints \"…\" comment")
        }
        if !group.runs, let shown = group.expectedOutput.first {
            throw ToolError(
                "\(group.displayPath):\(shown.line): error: this snippet shows its output (// Prints \"…\"): mark it <!-- snippet: expect-output --> so that the output is checked, or do not show it"
            )
        }
    }

    groups += wholeDocuments
    let sources = package + "/Sources"
    let wanted = Set(groups.map(\.name) + supportModules.map(\.name))
    for existing in (try? FileManager.default.contentsOfDirectory(atPath: sources)) ?? []
    where !wanted.contains(existing) {
        try FileManager.default.removeItem(atPath: sources + "/" + existing)
    }
    for module in supportModules {
        let text = try String(contentsOfFile: "\(repository)/Scripts/Snippets/\(module.file)", encoding: .utf8)
        try writeIfChanged(text, to: "\(sources)/\(module.name)/\(module.file)")
    }
    for group in groups {
        try writeIfChanged(mainFile(of: group), to: "\(sources)/\(group.name)/main.swift")
        let preludeFile = "\(sources)/\(group.name)/\(preludeFileName)"
        if group.usesPrelude {
            try writeIfChanged(prelude.file, to: preludeFile)
        } else if FileManager.default.fileExists(atPath: preludeFile) {
            try FileManager.default.removeItem(atPath: preludeFile)
        }
    }
    try writeIfChanged(manifest(repository: repository, groups: groups), to: package + "/Package.swift")
    let encoder = JSONEncoder()
    encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
    try writeIfChanged(String(decoding: try encoder.encode(groups), as: UTF8.self), to: package + "/" + manifestName)

    let programs = groups.filter { !$0.isWholeDocument }
    let blocks = programs.reduce(0) { $0 + $1.blocks.count }
    let run = programs.filter(\.runs).count
    print(
        "\(blocks + skipped) swift blocks in \(documents.count) documents: \(programs.count) programs of \(blocks) blocks, "
            + "\(skipped) marked skip; \(run) programs are run and their output compared; "
            + "\(prelude.blockCount) blocks make the prelude (\(prelude.typeNames.sorted().joined(separator: ", "))), "
            + "\(programs.filter(\.usesPrelude).count) programs use it; "
            + "compiled whole: \(wholeDocuments.map(\.displayPath).joined(separator: ", "))"
    )
}

/// A C99 identifier made of a document's path without its extension: `README`, `Example_README`.
func moduleNamePrefix(for path: String) -> String {
    let name = (path as NSString).deletingPathExtension
    let cleaned = String(name.map { $0.isASCII && ($0.isLetter || $0.isNumber) ? $0 : "_" })
    return cleaned.first?.isNumber == true ? "_" + cleaned : cleaned
}

/// The `// Prints "…"` lines of a block, with their document lines.
func expectedOutput(of block: CodeBlock, displayPath: String) throws -> [SnippetGroup.ExpectedLine] {
    try block.lines.enumerated().compactMap { offset, line in
        if let text = printedText(onLine: line) {
            return SnippetGroup.ExpectedLine(line: block.firstLine + offset, text: text)
        }
        if line.range(of: printsPattern, options: [.regularExpression, .caseInsensitive]) != nil {
            throw ToolError(
                "\(displayPath):\(block.firstLine + offset): error: a // Prints \"…\" comment ends with its closing quote"
            )
        }
        return nil
    }
}

/// The program of a group: the prelude imported, then each block under a `#sourceLocation` that points
/// at the document, so that the compiler reports errors at the document's lines.
func mainFile(of group: SnippetGroup) -> String {
    var text = """
        // Generated by Scripts/check-snippets.sh from \(group.displayPath): do not edit.

        """
    for line in group.implicitImports { text += line + "\n" }
    for block in group.blocks {
        text += "#sourceLocation(file: \"\(group.document)\", line: \(block.firstLine))\n"
        text += block.lines.joined(separator: "\n") + "\n"
        text += "#sourceLocation()\n"
    }
    return text
}

/// The generated package's manifest.
func manifest(repository: String, groups: [SnippetGroup]) -> String {
    // SwiftPM names a path dependency after its folder.
    let identity = (repository as NSString).lastPathComponent
    let library = ".product(name: \"LiveResults\", package: \"\(identity)\")"
    // The snippets of *Testing with LiveResults* import the second product, as a user's tests do.
    let testing = ".product(name: \"LiveResultsTesting\", package: \"\(identity)\")"
    let targets = groups.map { group in
        "        .executableTarget(name: \"\(group.name)\", dependencies: [\"UIKit\", \(library), \(testing)]),"
    }
    return """
        // swift-tools-version:6.0
        // Generated by Scripts/check-snippets.sh: every ```swift block of the documentation, one
        // executable per program. Do not edit.
        import PackageDescription

        let package = Package(
            name: "Snippets",
            platforms: [.macOS(.v15), .iOS(.v18), .tvOS(.v18), .watchOS(.v11), .visionOS(.v2)],
            dependencies: [.package(path: "\(repository)")],
            targets: [
                .target(name: "UIKit", dependencies: [\(library)]),
        \(targets.joined(separator: "\n"))
            ],
            swiftLanguageModes: [.v6]
        )

        """
}

/// Reads the groups that `generateSnippets` recorded.
func loadGroups(package: String) throws -> [SnippetGroup] {
    let data = try Data(contentsOf: URL(fileURLWithPath: package + "/" + manifestName))
    return try JSONDecoder().decode([SnippetGroup].self, from: data)
}

/// Prints, for each diagnostic of a failed build that points into a document, the snippet it is in.
func explainDiagnostics(package: String, buildLog: String) throws {
    let groups = try loadGroups(package: package)
    var shown = Set<String>()
    var reported = Set<String>()
    for line in try readLines(buildLog) where reported.insert(line).inserted {
        guard let match = line.firstMatch(of: /^(.+?):(\d+):(\d+): (error|warning): (.*)$/) else { continue }
        let file = String(match.1)
        guard let number = Int(match.2),
            let group = groups.first(where: { $0.document == file && $0.contains(line: number) })
        else { continue }
        printError("\(group.displayPath):\(number):\(match.3): \(match.4): \(match.5)")
        if shown.insert(group.name).inserted {
            printError("  in the snippet \(group.name) of \(group.displayPath):\n\(group.numberedListing)\n")
        }
    }
}

/// Runs every program marked `expect-output` and compares its standard output with the document's
/// `// Prints "…"` lines.
func verifyOutput(package: String, binaries: String) throws {
    var failures = 0
    for group in try loadGroups(package: package) {
        guard group.runs, !group.isWholeDocument else { continue }
        let expected = group.expectedOutput
        let (status, output) = try run(binaries + "/" + group.name, timeout: 120)
        var actual = output.components(separatedBy: "\n")
        if actual.last == "" { actual.removeLast() }
        let first = group.blocks[0].firstLine
        if status != 0 {
            printError("\(group.displayPath):\(first): error: the snippet \(group.name) exited with status \(status)")
            failures += 1
        }
        if actual == expected.map(\.text) {
            let lines = expected.count == 1 ? "1 line" : "\(expected.count) lines"
            print("ok: \(group.displayPath):\(first) (\(group.name)) printed the \(lines) it shows")
            continue
        }
        failures += 1
        printError(
            "\(group.displayPath):\(first): error: the snippet \(group.name) does not print what the document shows")
        for index in 0..<max(actual.count, expected.count) {
            let shown = index < expected.count ? expected[index] : nil
            let printed = index < actual.count ? actual[index] : nil
            guard shown?.text != printed else { continue }
            let place = shown.map { "\(group.displayPath):\($0.line)" } ?? "after the last // Prints line"
            printError("  \(place): the document shows \(shown.map { "\"\($0.text)\"" } ?? "nothing")")
            printError(
                "  \(String(repeating: " ", count: place.count))  the program printed \(printed.map { "\"\($0)\"" } ?? "nothing")"
            )
        }
        printError("  whole output:\n" + actual.map { "    " + $0 }.joined(separator: "\n"))
    }
    if failures > 0 { throw ToolError("error: \(failures) snippet(s) did not print what their document shows") }
}

/// Runs an executable, killing it after `timeout` seconds, and returns its status and standard output.
func run(_ executable: String, timeout: TimeInterval) throws -> (status: Int32, output: String) {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: executable)
    let pipe = Pipe()
    process.standardOutput = pipe
    try process.run()
    let timer = DispatchWorkItem { if process.isRunning { process.terminate() } }
    DispatchQueue.global().asyncAfter(deadline: .now() + timeout, execute: timer)
    let data = pipe.fileHandleForReading.readDataToEndOfFile()
    process.waitUntilExit()
    timer.cancel()
    return (process.terminationStatus, String(decoding: data, as: UTF8.self))
}
