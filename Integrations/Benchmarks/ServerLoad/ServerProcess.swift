import Foundation
import NIOConcurrencyHelpers

#if canImport(Glibc)
    import Glibc
#endif

/// The server example (`LiveResultsServer`, or `LiveResultsVaporServer` with `--server`), started from the binary
/// beside this one.
final class ServerProcess: Sendable {
    let process: Process
    let port: Int
    private let output: NIOLockedValueBox<String>

    var base: String { "http://127.0.0.1:\(port)" }
    var pid: Int32 { process.processIdentifier }

    init(_ arguments: [String], executable name: String) async throws {
        let directory = URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath().deletingLastPathComponent()
        let executable = directory.appendingPathComponent(name)
        guard FileManager.default.isExecutableFile(atPath: executable.path) else {
            throw Failure("no \(name) beside ServerLoad in \(directory.path): build it with --product \(name)")
        }
        let process = Process()
        process.executableURL = executable
        process.arguments = ["--port", "0"] + arguments
        let pipe = Pipe()
        process.standardOutput = pipe
        process.standardError = pipe
        let output = NIOLockedValueBox("")
        pipe.fileHandleForReading.readabilityHandler = { handle in
            let text = String(decoding: handle.availableData, as: UTF8.self)
            output.withLockedValue { $0 = String(($0 + text).suffix(16_384)) }
        }
        try process.run()
        self.process = process
        self.output = output
        let deadline = now() + 60_000_000_000
        var port: Int?
        while port == nil, process.isRunning, now() < deadline {
            try await Task.sleep(for: .milliseconds(10))
            port = output.withLockedValue { text in
                text.range(of: #"http://[^:]+:\d+/"#, options: .regularExpression).flatMap {
                    Int(text[$0].dropLast().split(separator: ":").last ?? "")
                }
            }
        }
        guard let port else {
            process.terminate()
            throw Failure("the server did not start: \(output.withLockedValue { $0 })")
        }
        self.port = port
    }

    var printed: String { output.withLockedValue { $0 } }

    /// SIGTERM, then SIGKILL if it has not exited in 20 seconds; returns the exit status.
    func stop() async -> Int32? {
        process.terminate()
        let deadline = now() + 20_000_000_000
        while process.isRunning, now() < deadline { try? await Task.sleep(for: .milliseconds(20)) }
        guard !process.isRunning else {
            kill(process.processIdentifier, SIGKILL)
            return nil
        }
        return process.terminationStatus
    }
}
