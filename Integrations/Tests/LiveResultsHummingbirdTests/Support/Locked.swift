import Synchronization

/// A value behind a lock, as a class: closures and tasks can share it (a `Mutex` cannot be captured).
final class Locked<Value: Sendable>: Sendable {
    private let mutex: Mutex<Value>

    init(_ value: Value) { mutex = Mutex(value) }

    func withLock<Result>(_ body: (inout sending Value) throws -> sending Result) rethrows -> sending Result {
        try mutex.withLock(body)
    }

    var value: Value { mutex.withLock { $0 } }
}
