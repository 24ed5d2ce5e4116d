import HTTPTypes
import Logging

/// The server's log line for a request, the same for every framework: at `info`, its method, path and status,
/// with its status and duration as metadata.
public enum RequestLog {
    /// Logs `method path status`, with the time since `started` in milliseconds.
    ///
    /// - Complexity: O(*n*) for a path of *n* characters.
    public static func log(
        _ logger: Logger, method: String, path: String, status: HTTPResponse.Status,
        since started: ContinuousClock.Instant
    ) {
        let duration = started.duration(to: .now)
        let milliseconds = Double(duration.components.seconds) * 1_000 + Double(duration.components.attoseconds) / 1e15
        logger.info(
            "\(method) \(path) \(status.code)",
            metadata: ["status": "\(status.code)", "duration_ms": "\(Int(milliseconds.rounded()))"])
    }
}
