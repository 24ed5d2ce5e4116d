import NIOConcurrencyHelpers

/// Orders a table's fetches after the installation of its subscriptions' observers, without blocking.
///
/// `subscribe` is synchronous and may be called from a task: it must not wait for GRDB's writer queue
/// (a thread of Swift's cooperative pool blocked on a GRDB queue can starve the very tasks that free the
/// queue: GRDB releases a `DatabasePool` reader from the awaiting task). So it only schedules the
/// observer's installation on the writer queue, and a fetch that starts afterwards waits here, suspended,
/// until every installation scheduled before it has run. A commit after the fetch's read then reaches the
/// observer, and the controller replays it onto the fetch's result.
final class _ObserverInstallations: Sendable {
    private struct State {
        /// Installations scheduled and not run yet.
        var pending = 0
        /// Fetches waiting for them.
        var waiters: [CheckedContinuation<Void, Never>] = []
    }

    private let state = NIOLockedValueBox(State())

    /// Records an installation scheduled on the writer queue.
    ///
    /// - Complexity: O(1).
    func scheduled() {
        state.withLockedValue { $0.pending += 1 }
    }

    /// Records that a scheduled installation ran, in success or failure, and resumes the fetches waiting
    /// when it was the last one.
    ///
    /// - Complexity: O(*w*) for *w* waiting fetches when it was the last; O(1) otherwise.
    func ran() {
        let waiters = state.withLockedValue { state -> [CheckedContinuation<Void, Never>] in
            state.pending -= 1
            guard state.pending == 0 else { return [] }
            defer { state.waiters = [] }
            return state.waiters
        }
        for waiter in waiters { waiter.resume() }
    }

    /// Returns once no installation is pending: at once when none is, else when the last one has run.
    ///
    /// - Complexity: O(1), plus the wait.
    func settled() async {
        guard state.withLockedValue({ $0.pending > 0 }) else { return }
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let resumeNow = state.withLockedValue { state in
                guard state.pending > 0 else { return true }
                state.waiters.append(continuation)
                return false
            }
            if resumeNow { continuation.resume() }
        }
    }
}
