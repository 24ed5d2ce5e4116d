import Dispatch
import NIOConcurrencyHelpers

/// The delivery queues of a table's live subscriptions, for ``GRDBLiveTable/synchronize()``: a transaction's
/// observer hands its batch to its subscription's queue before the commit returns, so a job queued on each of them
/// afterwards runs once everything committed before has been delivered.
final class _DeliveryQueues: Sendable {
    private struct State {
        var queues: [Int: DispatchQueue] = [:]
        var next = 0
    }

    private let state = NIOLockedValueBox(State())

    /// Records a subscription's queue; returns the number that ``remove(_:)`` takes.
    ///
    /// - Complexity: O(1).
    func add(_ queue: DispatchQueue) -> Int {
        state.withLockedValue { state in
            defer { state.next += 1 }
            state.queues[state.next] = queue
            return state.next
        }
    }

    /// Forgets subscription `number`'s queue.
    ///
    /// - Complexity: O(1).
    func remove(_ number: Int) {
        _ = state.withLockedValue { $0.queues.removeValue(forKey: number) }
    }

    /// Returns once each queue recorded now has run the jobs it held.
    ///
    /// - Complexity: O(*s*) for *s* subscriptions, plus the time their queues take to deliver what they hold.
    func drain() async {
        for queue in state.withLockedValue({ Array($0.queues.values) }) {
            await withCheckedContinuation { continuation in queue.async { continuation.resume() } }
        }
    }
}
