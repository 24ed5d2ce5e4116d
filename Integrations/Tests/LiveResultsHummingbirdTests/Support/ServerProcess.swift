import Foundation
import LiveResultsTestSupport
import NIOConcurrencyHelpers

/// The server example run as users run it: its own process (`LiveResultsServer` or `LiveResultsVaporServer`,
/// built beside the tests).
final class ServerProcess: Sendable {
    let process: Process
    let port: Int
    private let output: Locked<String>

    var base: String { "http://127.0.0.1:\(port)" }
    var printed: String { output.withLockedValue { $0 } }

    /// Starts `executable` with `arguments` (plus `--port 0`) and `environment` added to this process's, and
    /// waits until it prints where it listens.
    init(
        _ arguments: [String] = [], environment: [String: String] = [:], executable: ServerExecutable = .hummingbird
    ) async throws {
        let process = Process()
        process.executableURL = try executable.url
        process.arguments = ["--port", "0"] + arguments
        process.environment = ProcessInfo.processInfo.environment.merging(environment) { $1 }
        let pipe = Pipe()
        process.standardOutput = pipe
        process.standardError = pipe
        let output = Locked("")
        pipe.fileHandleForReading.readabilityHandler = { handle in
            let data = handle.availableData
            output.withLockedValue { $0 += String(decoding: data, as: UTF8.self) }
        }
        try process.run()
        self.process = process
        self.output = output
        var port: Int?
        await eventually(timeout: .seconds(60)) {
            port = Self.port(in: output.withLockedValue { $0 })
            return port != nil || !process.isRunning
        }
        guard let port else {
            process.terminate()
            throw TestFailure("the server did not start: \(output.withLockedValue { $0 })")
        }
        self.port = port
    }

    private static func port(in output: String) -> Int? {
        guard let range = output.range(of: #"http://[^:]+:(\d+)/"#, options: .regularExpression) else { return nil }
        let address = output[range].dropLast()
        return address.split(separator: ":").last.flatMap { Int($0) }
    }

    /// Sends SIGTERM and waits for the exit; returns the exit status, or `nil` if it did not exit in time.
    func terminate(within timeout: Duration = .seconds(20)) async -> Int32? {
        process.terminate()
        let exited = await eventually(timeout: timeout) { !process.isRunning }
        return exited ? process.terminationStatus : nil
    }

    deinit {
        if process.isRunning { kill(process.processIdentifier, SIGKILL) }
    }
}
