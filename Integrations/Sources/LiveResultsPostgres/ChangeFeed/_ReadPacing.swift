/// When a ``PostgresChangeFeed`` reads its slot next: the wait after each read, from what the reads found and how
/// long the read took on the feed's clock (``_FeedClock``).
///
/// - A read that came back full (as many changes as it asked for) is followed by the next one at once: the feed
///   is behind the log.
/// - After a read that found changes, the next read starts one read interval after this one started: reads
///   that take a while (PostgreSQL decodes the log from the slot's restart position at each read) do not add their
///   time to the interval. A read longer than the interval is followed by a quarter of it, so that a slow server
///   is not read in a busy loop.
/// - Once reads have found nothing for as long as the maximum, the wait doubles, from the read interval up to the
///   maximum: an idle feed asks little of either side, and the first change after a quiet spell snaps it back.
///   Gaps shorter than that (a writer's pause, a slow flush) keep the read interval: a busy table's latency does
///   not depend on its writers' rhythm. A fetch that waits for the feed wakes it at once
///   (``PostgresChangeFeed/wakeReader()``), so the longer waits delay only the changes.
struct _ReadPacing: Sendable {
    /// What a read found.
    enum Read: Sendable, Equatable {
        /// As many changes as the read asked for: more are waiting.
        case full
        /// Some changes.
        case changes
        /// Nothing new (the log had not moved, or had nothing for the publication).
        case nothing
    }

    /// The wait after a read that found changes.
    let interval: Duration
    /// The longest wait after reads that found nothing.
    let maximum: Duration
    /// The wait after the next read that finds nothing, once the feed has been quiet for ``maximum``.
    private(set) var idleWait: Duration
    /// The waits since the last read that found changes.
    private(set) var quiet = Duration.zero
    /// The clock that times the steps.
    let clock: _FeedClock
    /// When the current step started, on ``clock``.
    private var stepStart: Duration

    init(interval: Duration, maximum: Duration, clock: _FeedClock = _FeedClock(ContinuousClock())) {
        self.interval = interval
        self.maximum = max(interval, maximum)
        idleWait = interval
        self.clock = clock
        stepStart = clock.now
    }

    /// A step (the lookups, a read, its confirmation) starts now.
    ///
    /// - Returns: The time it started, on ``clock``.
    @discardableResult
    mutating func startStep() -> Duration {
        stepStart = clock.now
        return stepStart
    }

    /// The wait after the step that started at the last ``startStep()``, whose read found `read`: the time since
    /// it started counts as the read's.
    mutating func waitAfterStep(_ read: Read) -> Duration {
        wait(after: read, elapsed: clock.now - stepStart)
    }

    /// The wait after a read that found `read` and took `elapsed` (from the start of the step).
    mutating func wait(after read: Read, elapsed: Duration = .zero) -> Duration {
        switch read {
        case .full:
            return .zero
        case .changes:
            (idleWait, quiet) = (interval, .zero)
            return max(interval - elapsed, interval / 4)
        case .nothing where quiet < maximum:
            quiet += interval
            return interval
        case .nothing:
            defer { idleWait = min(idleWait * 2, maximum) }
            return idleWait
        }
    }
}
