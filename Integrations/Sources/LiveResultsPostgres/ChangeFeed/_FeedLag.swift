/// How far the feed's applied position is behind the server's log, in bytes and in seconds: the value behind the
/// gauges `liveresults_feed_lag_bytes` and `liveresults_feed_lag_seconds`, under the feed's lock.
///
/// The bytes are the server's last position the feed learned (a replication stream's keepalive or a commit it
/// sent; over SQL, `pg_current_wal_flush_lsn()` as the feed reads it anyway) minus the position the feed has handed
/// to its subscriptions. The seconds are measured as PostgreSQL measures a standby's lag: the feed keeps the
/// server's positions it learned with the time it learned each, and the lag is the age of the oldest one it has
/// not applied yet (0 when it applied them all). No clock of the server's is read, so no skew enters.
struct _FeedLag {
    /// The server's positions learned and not applied yet, oldest first, with when each was learned.
    private(set) var pending: [(position: UInt64, learned: ContinuousClock.Instant)] = []
    /// The server's last position learned.
    private(set) var serverPosition: UInt64 = 0
    /// The position handed to the subscriptions.
    private(set) var applied: UInt64 = 0

    /// The most positions kept: past it, the newest takes the last one's place, whose time it keeps (the lag in
    /// seconds can then read as old as that one's, a bounded overestimate).
    static let maximumPending = 64

    /// The server's log reached `position`, learned `now`.
    mutating func learned(_ position: UInt64, now: ContinuousClock.Instant) {
        guard position > serverPosition else { return }
        serverPosition = position
        guard position > applied else { return }
        if pending.count < Self.maximumPending {
            pending.append((position, now))
        } else {
            pending[pending.count - 1].position = position
        }
    }

    /// The feed handed everything before `position` to its subscriptions.
    mutating func applied(_ position: UInt64) {
        guard position > applied else { return }
        applied = position
        let done = pending.prefix { $0.position <= position }.count
        pending.removeFirst(done)
    }

    /// The bytes of the server's log the feed has not applied.
    var bytes: UInt64 { serverPosition > applied ? serverPosition - applied : 0 }

    /// The age at `now` of the oldest position learned and not applied, in seconds; 0 when none is pending.
    func seconds(at now: ContinuousClock.Instant) -> Double {
        guard let oldest = pending.first else { return 0 }
        let age = (now - oldest.learned).components
        return Double(age.seconds) + Double(age.attoseconds) / 1e18
    }
}
