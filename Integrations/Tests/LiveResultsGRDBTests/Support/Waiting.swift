import Dispatch
import Foundation

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
