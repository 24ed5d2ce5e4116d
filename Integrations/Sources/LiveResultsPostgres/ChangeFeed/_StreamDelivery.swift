/// When a ``PostgresChangeFeed`` reading a replication stream hands its committed transactions to the
/// subscriptions: at once after a quiet spell (the lowest latency), and at most once per interval while they keep
/// coming (a busy table costs a delivery per interval, not per transaction, as over SQL).
struct _StreamDelivery {
    /// What ``due(at:urgent:)`` says.
    enum Due: Equatable {
        /// Hand the transactions over now.
        case now
        /// Hand them over once this has passed: ask for a wake then.
        case after(Duration)
        /// Nothing to do (nothing held, or a wake is already asked for).
        case nothing
    }

    /// The position through which every committed transaction was handed over.
    private(set) var position: UInt64
    /// The shortest time between two hand-overs.
    let interval: Duration
    /// The transactions received and not handed over yet, in commit order.
    private var held: [_FeedTransaction] = []
    /// The position through which every committed transaction was received.
    private var received: UInt64
    private var lastHandOver: ContinuousClock.Instant?
    /// Whether a wake was asked for, for the held transactions.
    private var wakeAsked = false

    init(position: UInt64, interval: Duration) {
        (self.position, received, self.interval) = (position, position, interval)
    }

    /// The stream reached `end`: a transaction committed there (`transaction`, unless it was delivered before), or
    /// the server's position.
    mutating func received(_ end: UInt64, _ transaction: _FeedTransaction?) {
        received = max(received, end)
        if let transaction { held.append(transaction) }
    }

    /// Whether to hand over now; `urgent` when a fetch waits for the feed's position.
    mutating func due(at now: ContinuousClock.Instant, urgent: Bool) -> Due {
        guard received > position else { return .nothing }
        guard !held.isEmpty, !urgent, let last = lastHandOver, now - last < interval else { return .now }
        guard !wakeAsked else { return .nothing }
        wakeAsked = true
        return .after(interval - (now - last))
    }

    /// The held transactions, to deliver in order now; ``position`` moves to what was received.
    mutating func handOver(at now: ContinuousClock.Instant) -> [_FeedTransaction] {
        defer { (held, position, wakeAsked) = ([], received, false) }
        if !held.isEmpty { lastHandOver = now }
        return held
    }
}
