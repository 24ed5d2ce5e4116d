import NIOConcurrencyHelpers

/// Orders a table's fetches after its subscriptions' first `LISTEN`, so that no commit falls between a
/// fetch and the notifications that follow it.
///
/// A fetch waits while any subscription is still on its first attempt to listen; a subscription that
/// starts after a fetch of the table began is told to send `.invalidated` once it listens, because that
/// fetch may have missed what was committed before the `LISTEN`.
final class _FetchCoordination: Sendable {
    private struct State {
        /// Subscriptions whose first attempt to listen has not ended yet.
        var connecting = 0
        /// Fetches waiting for them.
        var waiters: [CheckedContinuation<Void, Never>] = []
        /// Whether any fetch of the table has started its query.
        var hasFetched = false
    }

    private let state = NIOLockedValueBox(State())

    /// Records a new subscription on its first attempt to listen.
    ///
    /// - Returns: Whether a fetch of the table started before it: its subscriber then needs `.invalidated`
    ///   once it listens.
    func subscriptionStarted() -> Bool {
        state.withLockedValue { state in
            state.connecting += 1
            return state.hasFetched
        }
    }

    /// Records that a subscription's first attempt to listen ended, in success or failure.
    func firstAttemptEnded() {
        let waiters = state.withLockedValue { state -> [CheckedContinuation<Void, Never>] in
            state.connecting -= 1
            guard state.connecting == 0, !state.waiters.isEmpty else { return [] }
            // Recorded under the same lock as the decision, so that a subscription starting from now on
            // knows that these fetches may predate its LISTEN.
            state.hasFetched = true
            defer { state.waiters = [] }
            return state.waiters
        }
        waiters.forEach { $0.resume() }
    }

    /// Waits until no subscription is on its first attempt to listen, then records that a fetch started.
    func fetchStarting() async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let resumeNow = state.withLockedValue { state in
                guard state.connecting > 0 else {
                    state.hasFetched = true
                    return true
                }
                state.waiters.append(continuation)
                return false
            }
            if resumeNow { continuation.resume() }
        }
    }
}
