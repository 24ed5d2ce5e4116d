/// A memory-pressure source you signal yourself, with ``send()``: for tests, and for apps that learn
/// about memory pressure their own way.
///
/// ```swift
/// let pressure = MemoryPressureSignal()
/// let controller = FetchedResultsController(definition: definition, memoryPressure: pressure)
/// pressure.send()   // the controller drops its cached associated values
/// ```
public final class MemoryPressureSignal: MemoryPressureSource {
    @usableFromInline let handlers = _Lock(_Subscribers<@Sendable () -> Void>())

    /// Creates a signal without subscribers.
    @inlinable public init() {}

    /// The number of active subscriptions.
    @inlinable public var subscriberCount: Int {
        handlers.withLock { $0.count }
    }

    /// Calls every subscriber's handler, on this thread.
    ///
    /// - Complexity: O(*s*) for *s* subscribers, plus their work.
    @inlinable public func send() {
        for handler in handlers.withLock({ $0.all }) {
            handler()
        }
    }

    /// Adds a handler that runs on every ``send()`` from now on.
    ///
    /// - Returns: A subscription that removes the handler when cancelled or released. It does not keep
    ///   the signal alive.
    /// - Complexity: O(1).
    @inlinable public func subscribe(_ handler: @escaping @Sendable () -> Void) -> EventSubscription {
        let id = handlers.withLock { $0.add(handler) }
        return EventSubscription { [weak self] in
            self?.handlers.withLock { $0.remove(id) }
        }
    }
}
