// The server example: the to-do list of the first example, served live.
//
//     swift run --package-path Integrations LiveResultsServer [--port 8080] [--host 127.0.0.1] [--postgres URL]
//         [--changes notify|wal|wal-sql]
//
// then open http://127.0.0.1:8080/ in a browser. `--help` lists every option; see the catalog article "Serving live
// results".
import ArgumentParser
import Foundation
import TodoServer

/// The command line: swift-argument-parser reads it into `TodoServer.Options`, prints `--help`, and refuses a bad
/// value with its error, the usage and exit status 64.
@main
struct LiveResultsServerCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "LiveResultsServer",
        abstract: "The to-do list of LiveResults' example, served live: open http://HOST:PORT/ in a browser.",
        discussion: """
            Options given win over the environment's PORT, HOST and DATABASE_URL (empty values count as none). A \
            refused option or value exits with status 64; a start that fails (a database out of reach, a --postgres \
            that is not a URL) exits with status 1.
            """)

    @OptionGroup var options: TodoServer.Options

    func validate() throws {
        _ = try options.configuration(environment: ProcessInfo.processInfo.environment)
    }

    func run() async throws {
        let configuration = try options.configuration(environment: ProcessInfo.processInfo.environment)
        let store = configuration.postgresURL == nil ? "in memory" : "in PostgreSQL"
        let host = configuration.host
        let deadlines = exitWhenShutdownOverruns(configuration.shutdownTimeout)
        defer { withExtendedLifetime(deadlines) {} }
        do {
            try await TodoServer(configuration: configuration).run { port in
                // Written at once (not buffered): scripts and tests read the port from this line.
                FileHandle.standardOutput.write(
                    Data("LiveResultsServer: to-dos \(store), open http://\(host):\(port)/\n".utf8))
            }
        } catch {
            FileHandle.standardError.write(Data("LiveResultsServer: \(error)\n".utf8))
            throw ExitCode.failure
        }
    }
}

/// Ends the process if a graceful shutdown outlives its deadline: the server escalates to cancellation
/// at `shutdownTimeout`, and this is the bound on that too, whatever a task still waits for.
func exitWhenShutdownOverruns(_ shutdownTimeout: Duration) -> [any DispatchSourceSignal] {
    let grace = shutdownTimeout + .seconds(2)
    return [SIGTERM, SIGINT].map { number in
        // As ServiceLifecycle does: the signal is ignored, and handled by dispatch sources (the server's and this).
        signal(number, SIG_IGN)
        let source = DispatchSource.makeSignalSource(signal: number, queue: .global())
        source.setEventHandler {
            DispatchQueue.global().asyncAfter(deadline: .now() + .milliseconds(Int(grace / .milliseconds(1)))) {
                FileHandle.standardError.write(
                    Data(
                        "LiveResultsServer: the graceful shutdown took over \(grace); exiting with what is left\n".utf8)
                )
                exit(1)
            }
        }
        source.resume()
        return source
    }
}
