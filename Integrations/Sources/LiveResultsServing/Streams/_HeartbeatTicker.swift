import NIOConcurrencyHelpers

/// The heartbeats of a set of routes' streams: one task for all of them, which wakes every quarter of the heartbeat
/// interval and ticks each stream (``_StreamQueue/tick(at:)``); a stream silent for the interval then sends a
/// heartbeat, so a heartbeat comes after one to one and a quarter intervals of silence.
///
/// The task runs while streams are registered: the first starts it, and it ends at the first tick that finds none.
final class _HeartbeatTicker: Sendable {
    private struct State {
        var streams: [Int: _StreamQueue] = [:]
        var nextID = 0
        var isTicking = false
    }

    /// The longest silence of a stream before its heartbeat.
    let interval: Duration
    private let elapsed: @Sendable () -> Duration
    private let sleepFor: @Sendable (Duration) async throws -> Void
    private let state = NIOLockedValueBox(State())

    /// Heartbeats after `interval` of silence, on `clock` (the tests' clock, or `ContinuousClock`).
    init<C: Clock>(interval: Duration, clock: C) where C.Duration == Duration {
        self.interval = interval
        let origin = clock.now
        elapsed = { origin.duration(to: clock.now) }
        sleepFor = { try await clock.sleep(until: clock.now.advanced(by: $0), tolerance: nil) }
    }

    /// The time on the clock since this ticker was made.
    var now: Duration { elapsed() }

    /// How often the task wakes: a quarter of the interval, at least a millisecond.
    var period: Duration { max(interval / 4, .milliseconds(1)) }

    /// Ticks `stream` from now on, until ``remove(_:)`` with the returned number.
    func add(_ stream: _StreamQueue) -> Int {
        let (id, start) = state.withLockedValue { state in
            defer { state.nextID += 1 }
            state.streams[state.nextID] = stream
            let start = !state.isTicking
            state.isTicking = true
            return (state.nextID, start)
        }
        if start { Task { await self.run() } }
        return id
    }

    /// Stops ticking the stream that ``add(_:)`` numbered `id`.
    func remove(_ id: Int) {
        _ = state.withLockedValue { $0.streams.removeValue(forKey: id) }
    }

    /// Ticks the streams every ``period`` until none is left.
    private func run() async {
        while true {
            // Nobody cancels this task: a sleep that threw would only tick early.
            try? await sleepFor(period)
            let streams = state.withLockedValue { state -> [_StreamQueue]? in
                guard !state.streams.isEmpty else {
                    state.isTicking = false
                    return nil
                }
                return Array(state.streams.values)
            }
            guard let streams else { return }
            let now = now
            for stream in streams { stream.tick(at: now) }
        }
    }
}
