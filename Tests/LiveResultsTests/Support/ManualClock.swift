import Foundation

/// A clock whose time moves only when a test advances it, so a schedule is checked without real time.
///
/// Its sleepers wait until the test calls ``advanceToNextDeadline()``, which moves the time to the earliest
/// deadline and wakes the sleepers that are due; ``sleeps`` counts the sleeps begun, so the test can wait
/// until the code under test is quiescent again (sleeping) before it advances.
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

    private let state = Locked<(now: Instant, sleepers: [Sleeper], sleeps: Int)>((Instant(offset: .zero), [], 0))

    var now: Instant { state.withLock { $0.now } }
    var minimumResolution: Duration { .zero }
    /// The sleeps begun so far (a sleep already due returns at once and counts too).
    var sleeps: Int { state.withLock { $0.sleeps } }
    /// The sleepers waiting now.
    var sleeping: Int { state.withLock { $0.sleepers.count } }

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
    }

    /// Moves the time to the earliest deadline of the sleepers, and wakes the ones due then.
    func advanceToNextDeadline() {
        let due = state.withLock { state -> [Sleeper] in
            guard let next = state.sleepers.map(\.deadline).min() else { return [] }
            state.now = next
            let due = state.sleepers.filter { !(next < $0.deadline) }
            state.sleepers.removeAll { !(next < $0.deadline) }
            return due
        }
        due.forEach { $0.continuation.resume() }
    }
}
