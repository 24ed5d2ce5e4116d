import ArgumentParser
import Foundation

/// What the server example's executables share, whatever the framework that serves: the command's help, the
/// line that gives the port, the exit statuses, and the bound on a graceful shutdown.
public enum TodoCommand {
    /// The command's name, abstract and discussion for `--help`.
    ///
    /// - Complexity: O(1).
    public static func configuration(name: String) -> CommandConfiguration {
        CommandConfiguration(
            commandName: name,
            abstract: "The to-do list of LiveResults' example, served live: open http://HOST:PORT/ in a browser.",
            discussion: """
                Options given win over the environment's PORT, HOST and DATABASE_URL (empty values count as none). \
                A refused option or value exits with status 64; a start that fails (a database out of reach, a \
                --postgres that is not a URL) exits with status 1.
                """)
    }

    /// Runs `serve` with the configuration `options` and the environment ask for, until it returns: prints
    /// `NAME: to-dos in memory, open http://HOST:PORT/` once the server listens, and ends the process if a
    /// graceful shutdown outlives the configuration's `shutdownTimeout`.
    ///
    /// - Parameters:
    ///   - name: The executable's name, which starts each line it prints.
    ///   - options: The command line.
    ///   - serve: Runs the server on the configuration, calling its second argument with the port it listens on.
    /// - Throws: `ExitCode.failure` when the server could not start or failed, after printing why.
    /// - Complexity: The server's run.
    public static func run(
        _ name: String, options: TodoOptions,
        serve: (TodoConfiguration, _ onRunning: @escaping @Sendable (Int) async -> Void) async throws -> Void
    ) async throws {
        let configuration = try options.configuration(environment: ProcessInfo.processInfo.environment)
        let store = configuration.postgresURL == nil ? "in memory" : "in PostgreSQL"
        let host = configuration.host
        let deadlines = exitWhenShutdownOverruns(configuration.shutdownTimeout, name: name)
        defer { withExtendedLifetime(deadlines) {} }
        do {
            try await serve(configuration) { port in
                // Written at once (not buffered): scripts and tests read the port from this line.
                FileHandle.standardOutput.write(Data("\(name): to-dos \(store), open http://\(host):\(port)/\n".utf8))
            }
        } catch {
            FileHandle.standardError.write(Data("\(name): \(error)\n".utf8))
            throw ExitCode.failure
        }
    }

    /// Ends the process if a graceful shutdown outlives its deadline: the server escalates to cancellation
    /// at `shutdownTimeout`, and this is the bound on that too, whatever a task still waits for.
    private static func exitWhenShutdownOverruns(
        _ shutdownTimeout: Duration, name: String
    ) -> [any DispatchSourceSignal] {
        let grace = shutdownTimeout + .seconds(2)
        return [SIGTERM, SIGINT].map { number in
            // As ServiceLifecycle does: the signal is ignored, and handled by dispatch sources (the server's and
            // this).
            signal(number, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: number, queue: .global())
            source.setEventHandler {
                DispatchQueue.global().asyncAfter(deadline: .now() + .milliseconds(Int(grace / .milliseconds(1)))) {
                    FileHandle.standardError.write(
                        Data("\(name): the graceful shutdown took over \(grace); exiting with what is left\n".utf8))
                    exit(1)
                }
            }
            source.resume()
            return source
        }
    }
}
