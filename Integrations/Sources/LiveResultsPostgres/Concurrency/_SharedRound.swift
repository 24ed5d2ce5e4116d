import NIOConcurrencyHelpers

/// Runs an operation for many callers at once: a caller joins the next round, which starts once the round in
/// flight (if any) has ended, and every caller of a round gets its result.
///
/// For an operation whose result holds for the callers that asked before it started (a barrier in a database's
/// log): a caller that arrives while a round runs cannot share it, since the round may have started before the
/// caller's own write committed, so it waits for the next. However many callers arrive meanwhile, one round runs
/// at a time: a thousand concurrent callers cost two rounds, not a thousand.
final class _SharedRound: Sendable {
    private struct State {
        var running = false
        /// The callers of the next round.
        var waiting: [CheckedContinuation<Void, any Error>] = []
    }

    private let state = NIOLockedValueBox(State())

    /// Returns when a round of `operation` that started after the call has ended; throws its error. The round is
    /// run by a task of its own, with the `operation` of the caller that started it.
    func join(_ operation: @escaping @Sendable () async throws -> Void) async throws {
        try await withCheckedThrowingContinuation { continuation in
            let starts = state.withLockedValue { state in
                state.waiting.append(continuation)
                defer { state.running = true }
                return !state.running
            }
            if starts { Task { await self.run(operation) } }
        }
    }

    /// Runs rounds while callers wait for one.
    private func run(_ operation: @Sendable () async throws -> Void) async {
        while true {
            let callers = state.withLockedValue { state in
                if state.waiting.isEmpty { state.running = false }
                defer { state.waiting = [] }
                return state.waiting
            }
            guard !callers.isEmpty else { return }
            let result: Result<Void, any Error>
            do {
                try await operation()
                result = .success(())
            } catch {
                result = .failure(error)
            }
            for caller in callers { caller.resume(with: result) }
        }
    }
}
