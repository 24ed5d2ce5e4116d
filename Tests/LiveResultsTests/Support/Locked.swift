import Foundation

/// A value behind an `NSLock`, for test state that several threads use at once.
///
/// On Linux `Synchronization.Mutex` locks with futex calls that ThreadSanitizer cannot see, so it
/// reports correctly locked accesses as races (the library's `_Lock` uses pthreads for the same
/// reason). `NSLock` is a pthread mutex, which ThreadSanitizer understands.
///
/// `@unchecked Sendable` is sound: `value` is only reachable through ``withLock(_:)``, which holds the
/// lock for the whole access, and `Value` is `Sendable`.
final class Locked<Value: Sendable>: @unchecked Sendable {
    private let lock = NSLock()
    private var value: Value

    init(_ value: Value) {
        self.value = value
    }

    func withLock<Result>(_ body: (inout Value) throws -> Result) rethrows -> Result {
        lock.lock()
        defer { lock.unlock() }
        return try body(&value)
    }
}
