import LiveResultsLockSupport

/// A value behind a lock, for the few shared values of this module.
typealias _Locked = PthreadLock
