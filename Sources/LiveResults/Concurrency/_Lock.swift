#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// A value guarded by a `pthread_mutex_t`, in the manner of SwiftNIO's `NIOLock`.
///
/// `Synchronization.Mutex` would be the natural choice, but on Linux it locks with raw futex calls that
/// ThreadSanitizer cannot see, so every correctly locked access is reported as a race and the
/// sanitizer run becomes useless. pthread mutexes are intercepted by ThreadSanitizer.
///
/// `@unchecked Sendable` is sound because `state` is only reachable through ``withLock(_:)``, which
/// holds the mutex for the whole access, and `State` itself is `Sendable`.
@usableFromInline final class _Lock<State: Sendable>: @unchecked Sendable {
    @usableFromInline let buffer: _LockBuffer<State>

    @inlinable init(_ state: State) {
        buffer = _LockBuffer.create(state)
    }

    /// Runs `body` with exclusive access to the state. Not re-entrant: `body` must not call back into
    /// anything that takes this lock.
    @inlinable func withLock<Result>(_ body: (inout State) throws -> Result) rethrows -> Result {
        try buffer.withUnsafeMutablePointers { state, mutex in
            precondition(pthread_mutex_lock(mutex) == 0, "pthread_mutex_lock failed")
            defer { precondition(pthread_mutex_unlock(mutex) == 0, "pthread_mutex_unlock failed") }
            return try body(&state.pointee)
        }
    }
}

/// The state and its mutex in one allocation.
@usableFromInline final class _LockBuffer<State>: ManagedBuffer<State, pthread_mutex_t> {
    @inlinable static func create(_ state: State) -> _LockBuffer {
        let buffer = self.create(minimumCapacity: 1) { _ in state } as! _LockBuffer
        buffer.withUnsafeMutablePointerToElements { mutex in
            mutex.initialize(to: pthread_mutex_t())
            precondition(pthread_mutex_init(mutex, nil) == 0, "pthread_mutex_init failed")
        }
        return buffer
    }

    deinit {
        withUnsafeMutablePointers { _, mutex in
            pthread_mutex_destroy(mutex)
            mutex.deinitialize(count: 1)
        }
    }
}
