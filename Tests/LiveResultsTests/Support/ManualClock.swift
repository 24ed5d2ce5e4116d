import Foundation
@testable import LiveResults

/// A clock whose time moves only when a test advances it, so a schedule is checked without real time.
///
/// Its sleepers wait until the test calls ``advanceToNextDeadline()`` or ``advance(by:)``, which move the time
/// and wake the sleepers that are due; ``sleeps`` counts the sleeps begun and ``wakes`` those that returned, so
/// that the test can wait until the code under test is quiescent again (sleeping, or past its wake-up) before
/// it advances or checks. A controller takes it as its clock through ``controllerClock``.
final class ManualClock: Clock, Sendable {
    struct Instant: InstantProtocol {
        var offset: Duration

        func advanced(by duration: Duration) -> Instant { Instant(offset: offset + duration) }
        func duration(to other: Instant) -> Duration { other.offset - offset }
        static func < (lhs: Instant, rhs: Instant) -> Bool { lhs.offset < rhs.offset }
    }

    private struct Sleeper {
        var id: Int
        var deadline: Instant
        var continuation: CheckedContinuation<Void, any Error>
    }

    private struct State {
        var now = Instant(offset: .zero)
        var sleepers: [Sleeper] = []
        var sleeps = 0
        var wakes = 0
    }

    private let state = Locked(State())

    var now: Instant { state.withLock { $0.now } }
    var minimumResolution: Duration { .zero }
    /// The sleeps begun so far (a sleep already due returns at once and counts too).
    var sleeps: Int { state.withLock { $0.sleeps } }
    /// The sleeps that returned because their deadline came (not those cancelled).
    var wakes: Int { state.withLock { $0.wakes } }
    /// The sleepers waiting now.
    var sleeping: Int { state.withLock { $0.sleepers.count } }

    /// This clock, as a controller's (`controller._clock = clock.controllerClock`).
    var controllerClock: _ControllerClock { _ControllerClock(self) }

    func sleep(until deadline: Instant, tolerance: Duration? = nil) async throws {
        let id = state.withLock { state in
            state.sleeps += 1
            return state.sleeps
        }
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { continuation in
                let isDue = state.withLock { state in
                    guard state.now < deadline else { return true }
                    state.sleepers.append(Sleeper(id: id, deadline: deadline, continuation: continuation))
                    return false
                }
                if isDue { continuation.resume() }
            }
        } onCancel: {
            let cancelled = state.withLock { state in
                state.sleepers.firstIndex { $0.id == id }.map { state.sleepers.remove(at: $0) }
            }
            cancelled?.continuation.resume(throwing: CancellationError())
        }
        state.withLock { $0.wakes += 1 }
    }

    /// Moves the time to the earliest deadline of the sleepers, and wakes the ones due then.
    func advanceToNextDeadline() {
        let due = state.withLock { state -> [Sleeper] in
            guard let next = state.sleepers.map(\.deadline).min() else { return [] }
            return Self.move(&state, to: next)
        }
        due.forEach { $0.continuation.resume() }
    }

    /// Moves the time by `duration`, whether or not anything sleeps, and wakes the sleepers due by then.
    func advance(by duration: Duration) {
        let due = state.withLock { state in Self.move(&state, to: state.now.advanced(by: duration)) }
        due.forEach { $0.continuation.resume() }
    }

    /// Ends every sleep with `CancellationError`: at the end of a test that leaves sleepers (a wake-up
    /// scheduled for a minute on), so that their tasks end.
    func cancelSleepers() {
        let sleepers = state.withLock { state in
            defer { state.sleepers = [] }
            return state.sleepers
        }
        sleepers.forEach { $0.continuation.resume(throwing: CancellationError()) }
    }

    private static func move(_ state: inout State, to instant: Instant) -> [Sleeper] {
        state.now = instant
        let due = state.sleepers.filter { !(instant < $0.deadline) }
        state.sleepers.removeAll { !(instant < $0.deadline) }
        return due
    }
}
