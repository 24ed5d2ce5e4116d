import Logging
import NIOConcurrencyHelpers

/// The logger of the queries the table runs on a connection it leases (the trigger's statements, `LISTEN`):
/// their failures are thrown, and the client logs its own way.
let _silentLogger = Logger(label: "LiveResultsPostgres", factory: { _ in SwiftLogNoOpLogHandler() })

extension PostgresLiveTable {
    /// Runs `operation`, which waits for a connection from ``client`` and calls `connected` once it has
    /// one. With ``diagnostics``, a connection attempt that fails before then fails the operation with
    /// ``PostgresLiveTableError/connectionFailed(reason:)`` (and cancels it); without, the operation
    /// waits as long as the client makes it.
    func connecting<Result: Sendable>(
        _ operation: @escaping @Sendable (_ connected: @escaping @Sendable () -> Void) async throws -> Result
    ) async throws -> Result {
        guard let diagnostics else { return try await operation {} }
        let wait = _ConnectionWait()
        let key = diagnostics.add(wait)
        defer { diagnostics.remove(key) }
        return try await withThrowingTaskGroup(of: _Connecting<Result>.self) { group in
            group.addTask { .finished(try await operation { wait.connected() }) }
            group.addTask {
                if let reason = await wait.failure() { throw PostgresLiveTableError.connectionFailed(reason: reason) }
                return .connected
            }
            while let outcome = try await group.next() {
                guard case .finished(let result) = outcome else { continue }
                group.cancelAll()
                return result
            }
            preconditionFailure("the operation's task ends with its result or its error")
        }
    }
}

/// How one of the two tasks of ``PostgresLiveTable/connecting(_:)`` ended without an error.
enum _Connecting<Result: Sendable>: Sendable {
    /// The operation finished.
    case finished(Result)
    /// The operation got its connection: the wait for a failure is over.
    case connected
}

/// A flag set from a `@Sendable` closure, read after it: whether a listening attempt got to `LISTEN`.
final class _Flag: Sendable {
    private let value = NIOLockedValueBox(false)

    var isSet: Bool { value.withLockedValue { $0 } }

    func set() { value.withLockedValue { $0 = true } }
}
