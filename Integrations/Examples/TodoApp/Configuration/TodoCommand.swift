import ArgumentParser
import Foundation

/// The server example's command, whatever the framework that serves: an executable's `@main` type declares its
/// name, its `TodoOptions` and how it serves, and gets the command's help, validation, the line that gives the
/// port, the exit statuses, and the bound on a graceful shutdown.
public protocol TodoCommand: AsyncParsableCommand {
    /// The executable's name, which starts each line it prints.
    static var name: String { get }

    /// The command line.
    var options: TodoOptions { get }

    /// Runs the server on `configuration` until it stops, reporting to `metrics` (answered at `GET /metrics`),
    /// calling `onRunning` with the port it listens on.
    static func serve(
        _ configuration: TodoConfiguration, metrics: TodoMetrics, onRunning: @escaping @Sendable (Int) async -> Void
    ) async throws
}

extension TodoCommand {
    /// The command's name, abstract and discussion for `--help`.
    ///
    /// - Complexity: O(1).
    public static var configuration: CommandConfiguration {
        CommandConfiguration(
            commandName: name,
            abstract: "The to-do list of LiveResults' example, served live: open http://HOST:PORT/ in a browser.",
            discussion: """
                Options given win over the environment's PORT, HOST and DATABASE_URL (empty values count as none). \
                A refused option or value exits with status 64; a start that fails (a database out of reach, a \
                --postgres that is not a URL) exits with status 1.
                """)
    }

    /// Refuses a command line whose configuration is refused (a `PORT` that is not a port, `--changes wal`
    /// without a database), with ArgumentParser's error, the usage and exit status 64.
    ///
    /// - Complexity: O(*h* + *o*) for *h* allowed hosts and *o* allowed origins.
    public func validate() throws {
        _ = try options.configuration(environment: ProcessInfo.processInfo.environment)
    }

    /// Runs ``serve(_:metrics:onRunning:)`` with the configuration the options and the environment ask for, until it
    /// returns: prints `NAME: to-dos in memory, open http://HOST:PORT/` once the server listens, and ends the
    /// process if a graceful shutdown outlives the configuration's `shutdownTimeout`.
    ///
    /// - Throws: `ExitCode.failure` when the server could not start or failed, after printing why.
    /// - Complexity: The server's run.
    public func run() async throws {
        let configuration = try options.configuration(environment: ProcessInfo.processInfo.environment)
        let name = Self.name
        let store = configuration.postgresURL == nil ? "in memory" : "in PostgreSQL"
        let host = configuration.host
        let deadlines = Self.exitWhenShutdownOverruns(configuration.shutdownTimeout)
        defer { withExtendedLifetime(deadlines) {} }
        // Before anything makes a metric: the change feed and the framework report through the global system.
        let metrics = TodoMetrics.bootstrap()
        do {
            try await Self.serve(configuration, metrics: metrics) { port in
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
    private static func exitWhenShutdownOverruns(_ shutdownTimeout: Duration) -> [any DispatchSourceSignal] {
        let name = Self.name
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
                    Foundation.exit(1)
                }
            }
            source.resume()
            return source
        }
    }
}
