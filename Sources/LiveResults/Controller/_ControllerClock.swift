/// The clock that a ``FetchedResultsController``'s timers read and sleep on (the end of a coalescing interval,
/// the ticks of ``FetchedResultsController/poll(every:)``): the continuous clock, or one that a test drives
/// (``FetchedResultsController/_clock``), so that those timers are checked without real time.
///
/// Any clock counted in `Duration` fits: its instants become offsets from the instant the clock was wrapped.
/// Nothing here runs per event; the controller reads the clock only while coalescing or polling.
@usableFromInline struct _ControllerClock: Clock, Sendable {
    /// A moment of the clock: the time since the wrapped clock's origin.
    @usableFromInline struct Instant: InstantProtocol, Sendable {
        @usableFromInline var offset: Duration

        @inlinable init(offset: Duration) { self.offset = offset }

        @inlinable func advanced(by duration: Duration) -> Self { Self(offset: offset + duration) }
        @inlinable func duration(to other: Self) -> Duration { other.offset - offset }
        @inlinable static func < (lhs: Self, rhs: Self) -> Bool { lhs.offset < rhs.offset }
    }

    @usableFromInline let readNow: @Sendable () -> Duration
    @usableFromInline let sleepUntil: @Sendable (Duration) async throws -> Void
    @usableFromInline let minimumResolution: Duration

    /// Wraps `clock`; its current instant becomes the origin.
    @inlinable init<Wrapped: Clock>(_ clock: Wrapped) where Wrapped.Duration == Duration {
        let origin = clock.now
        readNow = { origin.duration(to: clock.now) }
        sleepUntil = { try await clock.sleep(until: origin.advanced(by: $0), tolerance: nil) }
        minimumResolution = clock.minimumResolution
    }

    /// The continuous clock, shared by every controller that no test gave another.
    @usableFromInline static let continuous = _ControllerClock(ContinuousClock())

    @inlinable var now: Instant { Instant(offset: readNow()) }

    @inlinable func sleep(until deadline: Instant, tolerance: Duration? = nil) async throws {
        try await sleepUntil(deadline.offset)
    }
}
