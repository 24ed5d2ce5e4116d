/// The fixed-rate schedule of ``FetchedResultsController/poll(every:)``.
@usableFromInline enum _PollingSchedule {
    /// The first tick of the schedule `tick + k × period` (k ≥ 1) that is later than `now`: ticks that
    /// passed while a fetch ran are skipped rather than run back to back.
    @inlinable static func tick<Instant: InstantProtocol>(
        after tick: Instant, every period: Duration, now: Instant
    ) -> Instant where Instant.Duration == Duration {
        let late = tick.duration(to: now)
        guard late >= period else { return tick.advanced(by: period) }
        let passed = Int((late / period).rounded(.down))
        return tick.advanced(by: period * (passed + 1))
    }
}
