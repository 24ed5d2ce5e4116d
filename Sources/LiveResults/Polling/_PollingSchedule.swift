/// The fixed-rate schedule of ``FetchedResultsController/poll(every:)``.
@usableFromInline enum _PollingSchedule {
    /// The first tick of the schedule `tick + k × period` (k ≥ 1) that is later than `now`: ticks that
    /// passed while a fetch ran are skipped rather than run back to back.
    ///
    /// The count of ticks passed is a `Double` quotient, so it is checked: a tick it puts at or before
    /// `now` moves one period on, and a count beyond exact integers (a period of attoseconds after a
    /// fetch of seconds) starts the schedule again one period after `now` rather than trap converting it.
    @inlinable static func tick<Instant: InstantProtocol>(
        after tick: Instant, every period: Duration, now: Instant
    ) -> Instant where Instant.Duration == Duration {
        let late = tick.duration(to: now)
        guard late >= period else { return tick.advanced(by: period) }
        let passed = (late / period).rounded(.down)
        guard passed < 1e15 else { return now.advanced(by: period) }
        let next = tick.advanced(by: period * (Int(passed) + 1))
        return next > now ? next : next.advanced(by: period)
    }
}
