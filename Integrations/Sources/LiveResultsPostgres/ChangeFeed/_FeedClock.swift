/// The clock that paces a ``PostgresChangeFeed``'s reads: the waits between them, the time a read took, when
/// delivered transactions were last confirmed. `ContinuousClock` unless a test gives another, which then decides
/// when the feed's waits end.
///
/// Any `Clock` whose durations are `Duration`, read as the time since the clock's instant when this was created:
/// the feed is not generic over its clock.
struct _FeedClock: Sendable {
    private let elapsed: @Sendable () -> Duration
    private let sleepFor: @Sendable (Duration) async throws -> Void

    init<C: Clock>(_ clock: C) where C.Duration == Duration {
        let origin = clock.now
        elapsed = { origin.duration(to: clock.now) }
        sleepFor = { try await clock.sleep(until: clock.now.advanced(by: $0), tolerance: nil) }
    }

    /// The time since this clock was created.
    var now: Duration { elapsed() }

    /// Waits `duration` on the clock.
    ///
    /// - Throws: `CancellationError` when the task is cancelled first.
    func sleep(for duration: Duration) async throws { try await sleepFor(duration) }
}
