import LiveResultsLockSupport

/// A value behind a lock that closures and tasks can share.
typealias Locked = PthreadLock

extension PthreadLock {
    /// The value now.
    var value: State { withLock { $0 } }
}
