// The server example: the to-do list of the first example, served live.
//
//     swift run --package-path Integrations LiveResultsServer [--port 8080] [--host 127.0.0.1] [--postgres URL]
//         [--changes notify|wal|wal-sql]
//
// then open http://127.0.0.1:8080/ in a browser. `--help` lists every option; see the catalog article "Serving live
// results".
import ArgumentParser
import Foundation
import TodoApp
import TodoServer

/// The command line: swift-argument-parser reads it into `TodoOptions`, prints `--help`, and refuses a bad value
/// with its error, the usage and exit status 64.
@main
struct LiveResultsServerCommand: AsyncParsableCommand {
    static let configuration = TodoCommand.configuration(name: "LiveResultsServer")

    @OptionGroup var options: TodoOptions

    func validate() throws {
        _ = try options.configuration(environment: ProcessInfo.processInfo.environment)
    }

    func run() async throws {
        try await TodoCommand.run("LiveResultsServer", options: options) { configuration, onRunning in
            try await TodoServer(configuration: configuration).run(onRunning: onRunning)
        }
    }
}
