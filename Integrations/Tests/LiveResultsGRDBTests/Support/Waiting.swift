import Dispatch
import Foundation

/// Polls `condition` every 20 milliseconds until it holds or `timeout` of polling has passed: a bounded
/// wait, never a sleep that a test relies on.
///
/// Only the time this waiter was given counts against `timeout`: when the other suites' work starves the
/// cooperative pool (one thread per core, two on the development machine), a poll that comes back seconds
/// late counts as one short poll. A loaded machine then slows the wait down instead of failing it, and a
/// condition that never holds still fails after about `timeout`.
///
/// - Returns: Whether the condition held in time.
func eventually(
    timeout: Duration = .seconds(20), _ condition: @Sendable () async throws -> Bool
) async throws -> Bool {
    var left = timeout
    let step = Duration.milliseconds(20)
    let clock = ContinuousClock()
    while left > .zero, !Task.isCancelled {
        if try await condition() { return true }
        let start = clock.now
        try? await Task.sleep(for: step)
        left -= min(start.duration(to: clock.now), step * 20)
    }
    return try await condition()
}

/// Runs a synchronous GRDB call that has no `async` form (opening, closing, `backup(to:)`) on a dispatch
/// thread, and suspends until it returns.
///
/// Such a call waits for a GRDB queue. Made from an `async` test function, it would hold a thread of the
/// cooperative pool meanwhile (two threads here, shared with the PostgreSQL suites of the same process),
/// and the tasks that free GRDB's queues (GRDB releases a `DatabasePool` reader from the awaiting task)
/// could then not run: the whole test process stalled that way. Every other database access of the tests
/// uses GRDB's `async` methods.
func offThePool<T: Sendable>(_ body: @escaping @Sendable () throws -> T) async throws -> T {
    try await withCheckedThrowingContinuation { continuation in
        blockingCalls.async { continuation.resume(with: Result { try body() }) }
    }
}

/// The dispatch queue of ``offThePool(_:)``: concurrent, so that one blocked call never holds up another.
private let blockingCalls = DispatchQueue(label: "LiveResultsGRDBTests.blocking", attributes: .concurrent)
