/// A running subscription to an event source. Cancel it, or release it, to stop the delivery.
///
/// ```swift
/// let subscription = controller.observe(bus)
/// // …
/// subscription.cancel()
/// ```
public final class EventSubscription: Sendable {
    @usableFromInline let onCancel: _Lock<(@Sendable () -> Void)?>

    /// Creates a subscription that runs `onCancel` once, on the first ``cancel()`` or when released.
    @inlinable public init(onCancel: @escaping @Sendable () -> Void) {
        self.onCancel = _Lock(onCancel)
    }

    /// Stops the delivery. Calling it again does nothing.
    ///
    /// - Complexity: O(1), plus the cancellation's work (the first call only).
    @inlinable public func cancel() {
        let action = onCancel.withLock { action in
            defer { action = nil }
            return action
        }
        action?()
    }

    /// Whether ``cancel()`` was called.
    @inlinable public var isCancelled: Bool {
        onCancel.withLock { $0 == nil }
    }

    deinit {
        cancel()
    }
}
