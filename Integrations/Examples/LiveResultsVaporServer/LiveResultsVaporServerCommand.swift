// The server example on Vapor and Fluent: the to-do list of the first example, served live, with the flags, routes,
// answers and page of LiveResultsServer.
//
//     swift run --package-path Integrations LiveResultsVaporServer [--port 8080] [--host 127.0.0.1] [--postgres URL]
//         [--changes notify|wal|wal-sql]
//
// then open http://127.0.0.1:8080/ in a browser. `--help` lists every option.
import ArgumentParser
import Foundation
import TodoApp
import TodoVaporServer

/// The command line: swift-argument-parser reads it into `TodoOptions` (not Vapor's own commands, so that both
/// servers take the same flags), prints `--help`, and refuses a bad value with its error, the usage and exit
/// status 64.
@main
struct LiveResultsVaporServerCommand: AsyncParsableCommand {
    static let configuration = TodoCommand.configuration(name: "LiveResultsVaporServer")

    @OptionGroup var options: TodoOptions

    func validate() throws {
        _ = try options.configuration(environment: ProcessInfo.processInfo.environment)
    }

    func run() async throws {
        try await TodoCommand.run("LiveResultsVaporServer", options: options) { configuration, onRunning in
            try await TodoVaporServer(configuration: configuration).run(onRunning: onRunning)
        }
    }
}
