import Foundation

/// A failure the tool reports as is, then exits with status 1.
struct ToolError: Error {
    var message: String
    init(_ message: String) { self.message = message }
}

/// Writes a line to standard error.
func printError(_ message: String) {
    FileHandle.standardError.write(Data((message + "\n").utf8))
}

/// The lines of a text file, without their line terminators.
func readLines(_ path: String) throws -> [String] {
    let text = try String(contentsOfFile: path, encoding: .utf8)
    var lines = text.components(separatedBy: "\n")
    if lines.last == "" { lines.removeLast() }
    return lines
}

/// Writes `text` to `path` unless the file already holds exactly that (so incremental builds stay
/// incremental), creating the folders it needs.
func writeIfChanged(_ text: String, to path: String) throws {
    if let existing = try? String(contentsOfFile: path, encoding: .utf8), existing == text { return }
    let folder = (path as NSString).deletingLastPathComponent
    try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
    try text.write(toFile: path, atomically: true, encoding: .utf8)
}

/// `path` relative to `base` when it is inside it, else `path`.
func relativePath(_ path: String, to base: String) -> String {
    let prefix = base.hasSuffix("/") ? base : base + "/"
    return path.hasPrefix(prefix) ? String(path.dropFirst(prefix.count)) : path
}

/// An absolute, standardized version of `path`.
func absolutePath(_ path: String) -> String {
    let url = URL(fileURLWithPath: path, relativeTo: URL(fileURLWithPath: FileManager.default.currentDirectoryPath))
    return url.standardizedFileURL.path
}
