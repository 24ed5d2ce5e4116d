import NIOConcurrencyHelpers

/// A clock whose time moves only when a test advances it: code given this clock waits exactly as long as the test
/// says, and a test of waits and back-offs runs without sleeping.
///
/// Sleepers wake, in the order of their deadlines, when ``advance(by:)`` or ``advance(to:)`` reaches them; a sleeper
/// whose task is cancelled wakes at once and throws `CancellationError`, as with `ContinuousClock`.
///
/// ```swift
/// let clock = ManualClock()
/// let waiter = Task { try await clock.sleep(for: .seconds(1)) }
/// await clock.waitForSleepers(1)
/// clock.advance(by: .seconds(1))   // the waiter's sleep ends
/// ```
public final class ManualClock: Clock, Sendable {
    /// A point on a ``ManualClock``: the time since the clock started.
    public struct Instant: InstantProtocol, CustomStringConvertible {
        /// The time since the clock started.
        public var offset: Duration

        /// The instant `offset` after the clock started.
        public init(offset: Duration) { self.offset = offset }

        public func advanced(by duration: Duration) -> Instant { Instant(offset: offset + duration) }
        public func duration(to other: Instant) -> Duration { other.offset - offset }
        public static func < (lhs: Instant, rhs: Instant) -> Bool { lhs.offset < rhs.offset }
        public var description: String { "\(offset)" }
    }

    private struct Sleeper {
        var id: Int
        var deadline: Instant
        var continuation: CheckedContinuation<Void, any Error>
    }

    private struct State {
        var now = Instant(offset: .zero)
        var sleepers: [Sleeper] = []
        var nextID = 0
    }

    private let state = NIOLockedValueBox(State())

    /// A clock at offset zero, with no sleeper.
    public init() {}

    /// The current instant: moved only by ``advance(by:)`` and ``advance(to:)``.
    public var now: Instant { state.withLockedValue { $0.now } }

    /// Zero: any duration can be slept.
    public var minimumResolution: Duration { .zero }

    /// Sleeps until the clock is advanced to `deadline` (at once if it is there already).
    ///
    /// - Throws: `CancellationError` when the task is cancelled first.
    public func sleep(until deadline: Instant, tolerance: Duration? = nil) async throws {
        let id = state.withLockedValue { state in
            defer { state.nextID += 1 }
            return state.nextID
        }
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
                let (due, cancelled) = state.withLockedValue { state -> (Bool, Bool) in
                    if Task.isCancelled { return (false, true) }
                    guard deadline > state.now else { return (true, false) }
                    state.sleepers.append(Sleeper(id: id, deadline: deadline, continuation: continuation))
                    return (false, false)
                }
                if cancelled {
                    continuation.resume(throwing: CancellationError())
                } else if due {
                    continuation.resume()
                }
            }
        } onCancel: {
            let sleeper = state.withLockedValue { state -> Sleeper? in
                guard let index = state.sleepers.firstIndex(where: { $0.id == id }) else { return nil }
                return state.sleepers.remove(at: index)
            }
            sleeper?.continuation.resume(throwing: CancellationError())
        }
    }

    /// Moves the clock `duration` forward, waking the sleepers whose deadlines it reaches.
    public func advance(by duration: Duration) {
        precondition(duration >= .zero, "a clock does not go back")
        let woken = state.withLockedValue { state -> [Sleeper] in
            state.now = state.now.advanced(by: duration)
            return Self.removeDue(&state)
        }
        woken.forEach { $0.continuation.resume() }
    }

    /// Moves the clock to `instant` (if it is later than now), waking the sleepers whose deadlines it reaches.
    public func advance(to instant: Instant) {
        let woken = state.withLockedValue { state -> [Sleeper] in
            state.now = max(state.now, instant)
            return Self.removeDue(&state)
        }
        woken.forEach { $0.continuation.resume() }
    }

    /// Moves the clock to the earliest sleeper's deadline, waking it (and any other due then).
    ///
    /// - Returns: The time the clock moved, or `nil` when nobody sleeps.
    @discardableResult
    public func advanceToNextDeadline() -> Duration? {
        let (moved, woken) = state.withLockedValue { state -> (Duration?, [Sleeper]) in
            guard let next = state.sleepers.map(\.deadline).min() else { return (nil, []) }
            let moved = state.now.duration(to: max(state.now, next))
            state.now = max(state.now, next)
            return (moved, Self.removeDue(&state))
        }
        woken.forEach { $0.continuation.resume() }
        return moved
    }

    /// The number of tasks sleeping on the clock now.
    public var sleepers: Int { state.withLockedValue { $0.sleepers.count } }

    /// The earliest deadline of a task sleeping on the clock now.
    public var nextDeadline: Instant? { state.withLockedValue { $0.sleepers.map(\.deadline).min() } }

    /// Waits, bounded as ``eventually(timeout:isolation:_:)``, until at least `count` tasks sleep on the clock.
    ///
    /// - Returns: Whether they did in time.
    @discardableResult
    public func waitForSleepers(
        _ count: Int = 1, timeout: Duration = .seconds(20), isolation: isolated (any Actor)? = #isolation
    ) async -> Bool {
        await eventually(timeout: timeout) { sleepers >= count }
    }

    /// Removes the sleepers due at `state.now`, earliest deadline first.
    private static func removeDue(_ state: inout State) -> [Sleeper] {
        let now = state.now
        let due = state.sleepers.filter { $0.deadline <= now }.sorted { ($0.deadline, $0.id) < ($1.deadline, $1.id) }
        state.sleepers.removeAll { $0.deadline <= now }
        return due
    }
}
