/// How long an ``Association`` pauses its requests after one failed: exponential backoff.
///
/// After a request throws, reads of values that are not cached return `nil` and request nothing for
/// `initialDelay`; each further failure in a row doubles the pause, up to `maximumDelay`. A request
/// that succeeds ends the backoff.
///
/// ```swift
/// let authors = Association<Post, Author>(
///     key: \.authorID,
///     backoff: AssociationBackoff(initialDelay: .seconds(1), maximumDelay: .seconds(60))
/// ) { ids in try await api.authors(ids) }
/// ```
public struct AssociationBackoff: Sendable, Hashable {
    /// The pause after the first failure.
    public var initialDelay: Duration
    /// The longest pause.
    public var maximumDelay: Duration

    /// Creates a backoff: `initialDelay` after the first failure, doubling, at most `maximumDelay`.
    @inlinable public init(initialDelay: Duration = .milliseconds(100), maximumDelay: Duration = .seconds(30)) {
        precondition(initialDelay >= .zero && maximumDelay >= initialDelay, "0 <= initialDelay <= maximumDelay")
        self.initialDelay = initialDelay
        self.maximumDelay = maximumDelay
    }

    /// 0.1 second after the first failure, doubling, at most 30 seconds.
    public static let `default` = AssociationBackoff()

    /// The pause after `failures` failures in a row.
    ///
    /// - Complexity: O(log(`maximumDelay` / `initialDelay`)).
    @inlinable public func delay(afterFailures failures: Int) -> Duration {
        guard failures > 0 else { return .zero }
        var delay = initialDelay
        for _ in 1..<failures where delay < maximumDelay {
            delay *= 2
        }
        return min(delay, maximumDelay)
    }
}
