/// Capped exponential backoff: how long to wait after failures in a row, for an ``Association``'s
/// pause after a failed request and for a ``RetryPolicy``'s waits between attempts.
///
/// After the first failure the delay is `initialDelay`; each further failure in a row doubles it, up to
/// `maximumDelay`. With `jitter`, a wait is shortened by a random part of it, so that many clients that
/// failed together do not all retry together.
///
/// ```swift
/// let authors = Association<Post, Author>(
///     key: \.authorID,
///     backoff: Backoff(initialDelay: .seconds(1), maximumDelay: .seconds(60))
/// ) { ids in try await api.authors(ids: ids) }
/// let retry = RetryPolicy(maxAttempts: 4, backoff: Backoff(initialDelay: .milliseconds(200), jitter: 0.5))
/// ```
public struct Backoff: Sendable, Hashable {
    /// The delay after the first failure.
    public var initialDelay: Duration
    /// The longest delay.
    public var maximumDelay: Duration
    /// The largest part of a delay, from 0 to 1, that a random draw takes off it (see ``wait(afterFailures:)``).
    public var jitter: Double

    /// Creates a backoff: `initialDelay` after the first failure, doubling, at most `maximumDelay`.
    ///
    /// - Parameters:
    ///   - initialDelay: The delay after the first failure; 0 or more.
    ///   - maximumDelay: The longest delay; at least `initialDelay`.
    ///   - jitter: The largest part of a wait taken off at random, from 0 (none, the default) to 1.
    @inlinable public init(
        initialDelay: Duration = .milliseconds(100), maximumDelay: Duration = .seconds(30), jitter: Double = 0
    ) {
        precondition(initialDelay >= .zero && maximumDelay >= initialDelay, "0 <= initialDelay <= maximumDelay")
        precondition((0...1).contains(jitter), "jitter is from 0 to 1")
        self.initialDelay = initialDelay
        self.maximumDelay = maximumDelay
        self.jitter = jitter
    }

    /// 0.1 second after the first failure, doubling, at most 30 seconds, without jitter: an association's
    /// pause by default.
    public static let `default` = Backoff()

    /// 0.2 second after the first failure, doubling, at most 10 seconds, each wait shortened by up to half
    /// at random: a ``RetryPolicy``'s by default.
    public static let retries = Backoff(initialDelay: .milliseconds(200), maximumDelay: .seconds(10), jitter: 0.5)

    /// The delay after `failures` failures in a row, without jitter.
    ///
    /// - Complexity: O(log(`maximumDelay` / `initialDelay`)).
    @inlinable public func delay(afterFailures failures: Int) -> Duration {
        guard failures > 0 else { return .zero }
        var delay = initialDelay
        var doublings = failures - 1
        // Stops once the maximum is reached (or a zero delay cannot grow): a count of failures kept for days,
        // or `Int.max`, costs as little as a small one.
        while doublings > 0 && delay < maximumDelay && delay > .zero {
            delay *= 2
            doublings -= 1
        }
        return min(delay, maximumDelay)
    }

    /// The wait after `failures` failures in a row: ``delay(afterFailures:)`` less a random part of it,
    /// at most `jitter` of it.
    ///
    /// - Complexity: As ``delay(afterFailures:)``.
    @inlinable public func wait(afterFailures failures: Int) -> Duration {
        var random = SystemRandomNumberGenerator()
        return wait(afterFailures: failures, using: &random)
    }

    /// ``wait(afterFailures:)`` with the random numbers of `generator`, for tests that need the same waits.
    ///
    /// - Complexity: As ``delay(afterFailures:)``.
    @inlinable public func wait(afterFailures failures: Int, using generator: inout some RandomNumberGenerator)
        -> Duration
    {
        let delay = delay(afterFailures: failures)
        guard jitter > 0, delay > .zero else { return delay }
        return delay * (1 - jitter * Double.random(in: 0...1, using: &generator))
    }
}
