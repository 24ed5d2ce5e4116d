import NIOConcurrencyHelpers

/// A value behind a lock that closures and tasks can share.
typealias Locked = NIOLockedValueBox

extension NIOLockedValueBox {
    /// The value now.
    var value: Value { withLockedValue { $0 } }
}
