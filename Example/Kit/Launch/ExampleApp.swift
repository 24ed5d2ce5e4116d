import Foundation
import LiveResults

/// `LiveResultsExample`: parses the command line, opens the store and runs the chosen mode.
///
/// Which store each mode uses:
///
/// | | without `--store` | with `--store PATH` |
/// |---|---|---|
/// | demo | a new UserDefaults suite in a temporary folder, removed at the end | ``FileKeyValueStore`` at PATH; its to-dos are replaced |
/// | `--interactive` | the UserDefaults suite ``defaultSuiteName``, created on first run | ``FileKeyValueStore`` at PATH |
///
/// Each list saves the to-dos it shows in a `FileResultsStore` next to its store's file: see
/// ``resultsStore(nextTo:)``.
public enum ExampleApp {
    /// The suite of the interactive mode: `~/.config/LiveResultsExample.plist` on Linux.
    public static let defaultSuiteName = "LiveResultsExample"

    /// Runs the example.
    ///
    /// - Parameters:
    ///   - arguments: The arguments after the program's name.
    ///   - console: Where to read and write.
    /// - Returns: The exit status: 0, 1 if the store failed, 2 for a bad command line.
    public static func run(arguments: [String], console: Console) async -> Int32 {
        let options: ExampleOptions
        do {
            options = try ExampleOptions(arguments: arguments)
        } catch {
            console.printError("error: \(error)")
            console.printError("Try --help.")
            return 2
        }
        do {
            try await run(options, console: console)
            return 0
        } catch {
            console.printError("error: \(error)")
            return 1
        }
    }

    private static func run(_ options: ExampleOptions, console: Console) async throws {
        switch options.mode {
        case .help:
            ExampleOptions.usage.forEach(console.print)
        case .demo:
            try await runDemo(storePath: options.storePath, console: console)
        case .interactive:
            let (store, results) = try openStore(path: options.storePath)
            try await runInteractive(store: store, results: results, pageSize: options.pageSize, console)
        }
    }

    /// The saved to-dos of the store file at `path`: a `FileResultsStore` in the folder `PATH.cache`,
    /// next to it, such as `todos.plist.cache/` for `todos.plist`.
    ///
    /// A folder of its own, named after the whole file name, so that two stores in one folder never
    /// share their saved to-dos, and the folder is never the store's file, whatever its name.
    public static func resultsStore(nextTo path: String) -> FileResultsStore {
        FileResultsStore(directory: URL(fileURLWithPath: path + ".cache", isDirectory: true))
    }

    /// The file store at `path`, or the default UserDefaults suite, and the saved to-dos next to its file.
    private static func openStore(path: String?) throws -> (any KeyValueStore, FileResultsStore?) {
        guard let path else {
            let suite = try UserDefaultsKeyValueStore(suiteName: defaultSuiteName)
            return (suite, suite.filePath.map(resultsStore(nextTo:)))
        }
        let store = try FileKeyValueStore(path: path)
        return (store, resultsStore(nextTo: store.location))
    }

    private static func runDemo(storePath: String?, console: Console) async throws {
        console.print("LiveResults example: to-dos by project, sorted by priority then title, kept live.")
        guard let storePath else {
            try await withTemporaryStore { store, results in
                console.print("Store: a new temporary \(store.location), removed at the end; --store PATH keeps one.")
                try await ScriptedDemo.run(store: store, resultsStore: results, output: console.print)
            }
            return
        }
        let store = try FileKeyValueStore(path: storePath)
        console.print("Store: \(store.location)")
        try await ScriptedDemo.run(
            store: store, resultsStore: resultsStore(nextTo: store.location), output: console.print)
        console.print("Continue with: swift run LiveResultsExample --interactive --store \(storePath)")
    }

    private static func runInteractive(
        store: any KeyValueStore, results: FileResultsStore?, pageSize: Int, _ console: Console
    ) async throws {
        console.print("LiveResults example, interactive. Store: \(store.location)")
        if let results { console.print("Saved to-dos: \(results.directory.path)") }
        try await InteractiveSession.run(
            store: store, pageSize: pageSize, resultsStore: results, input: console.readLine, output: console.print,
            prompt: console.prompt, echoesInput: !console.isTerminal)
    }

    /// Runs `body` with a UserDefaults suite in a new temporary folder, and the saved to-dos next to its
    /// file, then removes the folder.
    private static func withTemporaryStore(
        _ body: (UserDefaultsKeyValueStore, any ResultsStore) async throws -> Void
    ) async throws {
        let folder = FileManager.default.temporaryDirectory
            .appendingPathComponent("LiveResultsExample-\(UUID().uuidString)", isDirectory: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let todos = folder.appendingPathComponent("todos").path
        let suite = try UserDefaultsKeyValueStore(suiteName: todos)
        try await body(suite, resultsStore(nextTo: suite.filePath ?? todos + ".plist"))
    }
}
