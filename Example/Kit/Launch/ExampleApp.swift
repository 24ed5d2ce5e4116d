import Foundation

/// `LiveResultsExample`: parses the command line, opens the store and runs the chosen mode.
///
/// Which store each mode uses:
///
/// | | without `--store` | with `--store PATH` |
/// |---|---|---|
/// | demo | a new UserDefaults suite in a temporary folder, removed at the end | ``FileKeyValueStore`` at PATH; its to-dos are replaced |
/// | `--interactive` | the UserDefaults suite ``defaultSuiteName``, created on first run | ``FileKeyValueStore`` at PATH |
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
            try await runInteractive(store: openStore(path: options.storePath), pageSize: options.pageSize, console)
        }
    }

    /// The file store at `path`, or the default UserDefaults suite.
    private static func openStore(path: String?) throws -> any KeyValueStore {
        guard let path else { return try UserDefaultsKeyValueStore(suiteName: defaultSuiteName) }
        return try FileKeyValueStore(path: path)
    }

    private static func runDemo(storePath: String?, console: Console) async throws {
        console.print("LiveResults example: to-dos by project, sorted by priority then title, kept live.")
        guard let storePath else {
            try await withTemporaryStore { store in
                console.print("Store: a new temporary \(store.location), removed at the end; --store PATH keeps one.")
                try await ScriptedDemo.run(store: store, output: console.print)
            }
            return
        }
        let store = try FileKeyValueStore(path: storePath)
        console.print("Store: \(store.location)")
        try await ScriptedDemo.run(store: store, output: console.print)
        console.print("Continue with: swift run LiveResultsExample --interactive --store \(storePath)")
    }

    private static func runInteractive(store: any KeyValueStore, pageSize: Int, _ console: Console) async throws {
        console.print("LiveResults example, interactive. Store: \(store.location)")
        try await InteractiveSession.run(
            store: store, pageSize: pageSize, input: console.readLine, output: console.print, prompt: console.prompt,
            echoesInput: !console.isTerminal)
    }

    /// Runs `body` with a UserDefaults suite in a new temporary folder, then removes the folder.
    private static func withTemporaryStore(_ body: (UserDefaultsKeyValueStore) async throws -> Void) async throws {
        let folder = FileManager.default.temporaryDirectory
            .appendingPathComponent("LiveResultsExample-\(UUID().uuidString)", isDirectory: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        try await body(UserDefaultsKeyValueStore(suiteName: folder.appendingPathComponent("todos").path))
    }
}
