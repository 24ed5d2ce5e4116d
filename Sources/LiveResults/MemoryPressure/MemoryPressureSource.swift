/// Something that tells when the process should give memory back.
///
/// A ``FetchedResultsController`` given a source (`memoryPressure:` at initialization) drops every cached
/// associated value on each signal, and reports the entities that lost a value in one change set.
/// The library ships ``MemoryPressureSignal``, a manual source, and ``LinuxMemoryPressureSource``, which
/// watches the kernel's pressure stall information. A source of your own adapts anything else, such as
/// Dispatch's memory-pressure events on Apple platforms:
///
/// ```swift
/// struct DispatchMemoryPressure: MemoryPressureSource {
///     func subscribe(_ handler: @escaping @Sendable () -> Void) -> EventSubscription {
///         let source = DispatchSource.makeMemoryPressureSource(eventMask: [.warning, .critical])
///         source.setEventHandler(handler: handler)
///         source.activate()
///         return EventSubscription { source.cancel() }
///     }
/// }
/// ```
public protocol MemoryPressureSource: Sendable {
    /// Calls `handler`, from any thread, each time memory pressure is signalled, until the returned
    /// subscription is cancelled or released.
    func subscribe(_ handler: @escaping @Sendable () -> Void) -> EventSubscription
}
