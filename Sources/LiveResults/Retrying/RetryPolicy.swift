/// How often a fetch or a page request is tried before its failure counts, and how long to wait
/// between attempts.
///
/// ```swift
/// let definition = FetchDefinition<Post>(request: { try await api.posts() }, retry: RetryPolicy(maxAttempts: 3))
/// ```
///
/// A request that throws is tried again after the backoff's ``Backoff/wait(afterFailures:)`` (capped,
/// exponential, with jitter), until it succeeds or `maxAttempts` attempts failed; then the last error
/// counts as the request's. A `CancellationError`, or the cancellation of the task that waits, stops the
/// retries at once. Each retry is reported as ``ControllerDiagnostic/requestRetried(_:attempt:)``.
public struct RetryPolicy: Sendable, Hashable {
    /// How many attempts in all, the first included; at least 1.
    public var maxAttempts: Int
    /// The waits between attempts.
    public var backoff: Backoff

    /// Creates a retry policy.
    ///
    /// - Parameters:
    ///   - maxAttempts: How many attempts in all, the first included; at least 1.
    ///   - backoff: The waits between attempts; ``Backoff/retries`` by default.
    @inlinable public init(maxAttempts: Int, backoff: Backoff = .retries) {
        precondition(maxAttempts >= 1, "at least one attempt")
        self.maxAttempts = maxAttempts
        self.backoff = backoff
    }

    /// One attempt, no retry: the default of a definition.
    public static let none = RetryPolicy(maxAttempts: 1)

    /// Runs `operation` until it succeeds or the attempts are spent.
    ///
    /// - Parameters:
    ///   - operation: The request.
    ///   - retrying: Called after a failed attempt that will be tried again, with its error and the
    ///     number of the attempt to come.
    /// - Throws: The last attempt's error, or `CancellationError` when the task is cancelled meanwhile.
    @inlinable func run<Result>(
        _ operation: () async throws -> Result, retrying: (any Error, Int) -> Void
    ) async throws -> Result {
        var attempt = 1
        while true {
            do {
                return try await operation()
            } catch is CancellationError {
                throw CancellationError()
            } catch {
                guard attempt < maxAttempts else { throw error }
                retrying(error, attempt + 1)
                try await Task.sleep(for: backoff.wait(afterFailures: attempt))
                attempt += 1
            }
        }
    }
}
