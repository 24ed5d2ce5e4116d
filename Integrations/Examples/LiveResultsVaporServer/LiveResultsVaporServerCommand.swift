// The server example on Vapor and Fluent: the to-do list of the first example, served live, with the flags, routes,
// answers and page of LiveResultsServer.
//
//     swift run --package-path Integrations LiveResultsVaporServer [--port 8080] [--host 127.0.0.1] [--postgres URL]
//         [--changes notify|wal|wal-sql]
//
// then open http://127.0.0.1:8080/ in a browser. `--help` lists every option.
import ArgumentParser
import TodoApp
import TodoVaporServer

/// The command line: swift-argument-parser reads it into `TodoOptions`, prints `--help`, and refuses a bad value
/// with its error, the usage and exit status 64 (`TodoCommand`).
@main
struct LiveResultsVaporServerCommand: TodoCommand {
    static let name = "LiveResultsVaporServer"

    @OptionGroup var options: TodoOptions

    static func serve(
        _ configuration: TodoConfiguration, metrics: TodoMetrics, onRunning: @escaping @Sendable (Int) async -> Void
    ) async throws {
        try await TodoVaporServer(configuration: configuration, metrics: metrics).run(onRunning: onRunning)
    }
}
