// The server example: the to-do list of the first example, served live.
//
//     swift run --package-path Integrations LiveResultsServer [--port 8080] [--host 127.0.0.1] [--postgres URL]
//         [--changes notify|wal|wal-sql]
//
// then open http://127.0.0.1:8080/ in a browser. `--help` lists every option; see the catalog article "Serving live
// results".
import ArgumentParser
import TodoApp
import TodoServer

/// The command line: swift-argument-parser reads it into `TodoOptions`, prints `--help`, and refuses a bad value
/// with its error, the usage and exit status 64 (`TodoCommand`).
@main
struct LiveResultsServerCommand: TodoCommand {
    static let name = "LiveResultsServer"

    @OptionGroup var options: TodoOptions

    static func serve(
        _ configuration: TodoConfiguration, metrics: TodoMetrics, onRunning: @escaping @Sendable (Int) async -> Void
    ) async throws {
        try await TodoServer(configuration: configuration, metrics: metrics).run(onRunning: onRunning)
    }
}
