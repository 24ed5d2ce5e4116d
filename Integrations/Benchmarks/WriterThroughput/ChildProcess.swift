import Foundation
import LiveResultsTestSupport
import NIOConcurrencyHelpers

#if canImport(Glibc)
    import Glibc
#endif

/// A program this tool runs beside itself (the server example, `pg_recvlogical`), its output kept in a file, stopped
/// by ``stop(within:)`` or, at the latest, when this process exits.
///
/// Spawned with an empty signal mask, as `TemporaryPostgres.run` does: this process's threads block signals, and
/// `Foundation.Process` passes its mask on, so a child that ends on `SIGINT` or `SIGTERM` (`pg_recvlogical`) would
/// never see them.
final class ChildProcess: Sendable {
    let pid: pid_t
    let name: String
    private let outputPath: String
    /// The exit status once `waitpid` has reaped the child: it must be reaped once only.
    private let status = NIOLockedValueBox<Int32?>(nil)

    /// The children still running, killed at exit: a failed run must not leave a server writing to the cluster
    /// it shares nothing with any more.
    private static let running = NIOLockedValueBox<Set<pid_t>>([])

    init(_ program: String, _ arguments: [String], environment: [String]? = nil) throws {
        name = URL(fileURLWithPath: program).lastPathComponent
        outputPath = NSTemporaryDirectory() + "liveresults-writers-\(name)-\(UUID().uuidString)"
        let pid = try TemporaryPostgres.spawn(program, arguments, environment: environment, output: outputPath)
        self.pid = pid
        Self.running.withLockedValue { _ = $0.insert(pid) }
        Self.killAtExit
    }

    /// Registers, once, the handler that kills the children left running when this process exits.
    private static let killAtExit: Void = {
        atexit {
            for pid in ChildProcess.running.withLockedValue({ $0 }) { kill(pid, SIGKILL) }
        }
    }()

    /// What the child wrote to its standard output and error so far.
    var output: String { (try? String(contentsOfFile: outputPath, encoding: .utf8)) ?? "" }

    /// Whether the child is still running (reaps it once it has exited).
    var isRunning: Bool {
        status.withLockedValue { status in
            guard status == nil else { return false }
            var code: Int32 = 0
            guard waitpid(pid, &code, WNOHANG) == pid else { return true }
            status = code
            Self.running.withLockedValue { _ = $0.remove(pid) }
            return false
        }
    }

    /// Waits until `output` matches `pattern`, for at most `timeout`; returns the match, or throws with the output
    /// if the child exits or the time runs out first.
    func waitForOutput(matching pattern: String, within timeout: Duration) async throws -> String {
        let deadline = ContinuousClock.now + timeout
        while ContinuousClock.now < deadline {
            let text = output
            if let range = text.range(of: pattern, options: .regularExpression) { return String(text[range]) }
            guard isRunning else { break }
            try await Task.sleep(for: .milliseconds(20))
        }
        throw TemporaryPostgres.Failure(description: "\(name) did not print \(pattern): \(output.suffix(4000))")
    }

    /// Sends `SIGTERM`, then `SIGKILL` if the child is still running after `timeout`; removes its output file.
    func stop(within timeout: Duration = .seconds(20)) async {
        defer { try? FileManager.default.removeItem(atPath: outputPath) }
        guard isRunning else { return }
        kill(pid, SIGTERM)
        let deadline = ContinuousClock.now + timeout
        while isRunning, ContinuousClock.now < deadline { try? await Task.sleep(for: .milliseconds(20)) }
        if isRunning {
            kill(pid, SIGKILL)
            let killed = ContinuousClock.now + .seconds(10)
            while isRunning, ContinuousClock.now < killed { try? await Task.sleep(for: .milliseconds(20)) }
        }
    }
}
