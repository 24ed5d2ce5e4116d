import NIOConcurrencyHelpers

/// One stream's signals, in one place: its writer (the request's own task) waits here for whatever comes first —
/// updates ready, the source's status, a heartbeat, the end — rather than in a task per thing it waits for.
///
/// The thin shell of a ``_StreamState``: its lock, the writer's continuation while it waits, and the heartbeat clock.
/// Whoever signals (the update stream's handler, the routes' heartbeat ticker, the source's status, the client's
/// departure, a shutdown) runs a transition under the lock and resumes the writer after it.
final class _StreamQueue: Sendable {
    private typealias Waiter = UnsafeContinuation<_StreamState.Signal, Never>

    private struct Box {
        var state: _StreamState
        /// The writer, while the state is `waiting` (and only then).
        var waiter: Waiter?
    }

    private let box: NIOLockedValueBox<Box>
    private let heartbeats: _HeartbeatTicker?

    /// A stream's signals, with heartbeats from `heartbeats` (`nil`: none).
    init(heartbeats: _HeartbeatTicker?) {
        self.heartbeats = heartbeats
        box = NIOLockedValueBox(
            Box(state: _StreamState(at: heartbeats?.now ?? .zero, heartbeat: heartbeats?.interval), waiter: nil))
    }

    /// The stream's state now: whether its writer waits, for the tests.
    var state: _StreamState.State { box.withLockedValue { $0.state.state } }

    /// What to send next, waiting for it; `wrote` and `pollAgain` say what the writer did with what it got last (see
    /// ``_StreamState/next(at:wrote:pollAgain:)``). A cancelled task gets ``_StreamState/Signal/end``.
    func next(wrote: Bool, pollAgain: Bool) async -> _StreamState.Signal {
        let now = heartbeats?.now ?? .zero
        return await withTaskCancellationHandler {
            // Asked and, when nothing is due, waited for under one hold of the lock: a signal between the two would
            // find the state waiting and no one to wake.
            await withUnsafeContinuation { (continuation: Waiter) in
                let signal = box.withLockedValue { box in
                    let signal = box.state.next(at: now, wrote: wrote, pollAgain: pollAgain)
                    if signal == nil { box.waiter = continuation }
                    return signal
                }
                if let signal { continuation.resume(returning: signal) }
            }
        } onCancel: {
            end()
        }
    }

    /// The stream's updates may be ready.
    func updatesReady() { signal { $0.updatesReady() } }

    /// The source's status changed.
    func sourceChanged(available: Bool) { signal { $0.sourceChanged(available: available) } }

    /// The heartbeat clock ticked at `now`.
    func tick(at now: Duration) { signal { $0.tick(at: now) } }

    /// The stream ends.
    func end() { signal { $0.end() } }

    /// Runs `transition`, and resumes the waiting writer with the signal it returns, after the lock.
    private func signal(_ transition: (inout _StreamState) -> _StreamState.Signal?) {
        let wake = box.withLockedValue { box -> (waiter: Waiter, signal: _StreamState.Signal)? in
            guard let signal = transition(&box.state), let waiter = box.waiter else { return nil }
            box.waiter = nil
            return (waiter, signal)
        }
        if let wake { wake.waiter.resume(returning: wake.signal) }
    }
}
