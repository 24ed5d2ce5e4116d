import Synchronization

/// Set once when an observer's subscription is cancelled, and read before each call of its handler, so
/// that a handler removed while a delivery is under way (by itself or by another observer's callback)
/// is not called with the change sets queued before its removal.
@usableFromInline final class _CancellationFlag: Sendable {
    @usableFromInline let value = Atomic<Bool>(false)

    @inlinable init() {}

    @inlinable var isSet: Bool { value.load(ordering: .acquiring) }

    @inlinable func set() { value.store(true, ordering: .releasing) }
}
