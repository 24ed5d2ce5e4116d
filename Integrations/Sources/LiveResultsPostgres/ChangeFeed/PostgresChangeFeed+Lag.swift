import Metrics
import NIOConcurrencyHelpers

extension PostgresChangeFeed {
    /// The server's log reached `position` (a keepalive's, a commit's end, or `pg_current_wal_flush_lsn()`).
    func learnedServerPosition(_ position: UInt64) {
        reportLag { $0.learned(position, now: .now) }
    }

    /// The feed handed everything before `position` to its subscriptions.
    func appliedPosition(_ position: UInt64) {
        reportLag { $0.applied(position) }
    }

    /// Changes the lag by `change`, and records the gauges.
    private func reportLag(_ change: (inout _FeedLag) -> Void) {
        let now = ContinuousClock.now
        let (bytes, seconds) = lag.withLockedValue { lag in
            change(&lag)
            return (lag.bytes, lag.seconds(at: now))
        }
        lagGauges.bytes.record(bytes)
        lagGauges.seconds.record(seconds)
    }
}
