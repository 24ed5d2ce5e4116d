#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// A value guarded by a `pthread_mutex_t`: the integrations' lock, in the manner of the root package's and
/// of SwiftNIO's `NIOLock`.
///
/// `Synchronization.Mutex` would be the natural choice, but on Linux it locks with futex calls inside the
/// standard library, which ThreadSanitizer does not see: every correctly locked access is reported as a
/// race, and a sanitizer run of the integrations' tests says nothing. pthread mutexes are intercepted by
/// ThreadSanitizer. This target is not a product: users of the integrations never import it.
///
/// `@unchecked Sendable` is sound because `state` is only reachable through ``withLock(_:)``, which holds
/// the mutex for the whole access, and `State` itself is `Sendable`.
public final class PthreadLock<State: Sendable>: @unchecked Sendable {
    @usableFromInline let buffer: _LockBuffer<State>

    /// A lock guarding `state`.
    public init(_ state: State) {
        buffer = _LockBuffer.create(state)
    }

    /// Runs `body` with exclusive access to the state. Not re-entrant: `body` must not call back into
    /// anything that takes this lock.
    @inlinable public func withLock<Result, Failure: Error>(
        _ body: (inout State) throws(Failure) -> Result
    ) throws(Failure) -> Result {
        try buffer.withUnsafeMutablePointers { (state, mutex) throws(Failure) -> Result in
            precondition(pthread_mutex_lock(mutex) == 0, "pthread_mutex_lock failed")
            defer { precondition(pthread_mutex_unlock(mutex) == 0, "pthread_mutex_unlock failed") }
            return try body(&state.pointee)
        }
    }
}

/// The state and its mutex in one allocation.
@usableFromInline final class _LockBuffer<State>: ManagedBuffer<State, pthread_mutex_t> {
    static func create(_ state: State) -> _LockBuffer {
        // `create` is declared on ManagedBuffer, so it returns the base type; the instance is this class.
        let buffer = unsafeDowncast(self.create(minimumCapacity: 1) { _ in state }, to: _LockBuffer.self)
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
