import NIOConcurrencyHelpers

/// Whether the source of a controller's changes (a database) is within reach, as the routes' Server-Sent
/// Events streams tell their clients.
///
/// Set it from what the source reports — for a `PostgresLiveTable`, its listening connection's events —
/// and give it to ``LiveResultsOptions/sourceStatus``. Each Server-Sent Events stream then sends an event of
/// its own when the status changes (and when it starts while the source is out of reach):
///
/// ```
/// event: source
/// data: {"available":false}
/// ```
///
/// A browser's `EventSource` delivers it only to a listener of `source` events (`onmessage` never sees it),
/// so clients that do not know it ignore it; `RemoteResults` does too. WebSocket streams do not send it.
///
/// ```swift
/// let status = LiveResultsSourceStatus()
/// let todos = PostgresLiveTable<Todo>(client: client, table: "todos") { event in
///     switch event {
///     case .connectionFailed: status.set(available: false)
///     case .listening: status.set(available: true)
///     default: break
///     }
/// }
/// router.addLiveResults(controller, at: "todos", options: LiveResultsOptions(sourceStatus: status))
/// ```
public final class LiveResultsSourceStatus: Sendable {
    private struct State {
        var isAvailable = true
        var watchers: [Int: @Sendable (Bool) -> Void] = [:]
        var nextWatcher = 0
    }

    private let state = NIOLockedValueBox(State())

    /// A status that says the source is available.
    ///
    /// - Complexity: O(1).
    public init() {}

    /// Whether the source is within reach: `true` until ``set(available:)`` says otherwise.
    ///
    /// - Complexity: O(1).
    public var isAvailable: Bool { state.withLockedValue { $0.isAvailable } }

    /// Records whether the source is within reach; the open streams tell their clients when this changes it.
    ///
    /// - Parameter available: Whether the source is within reach.
    /// - Complexity: O(*s*) for *s* open streams when it changes the status, else O(1).
    public func set(available: Bool) {
        state.withLockedValue { state in
            guard state.isAvailable != available else { return }
            state.isAvailable = available
            // Under the lock, so that every stream sees the changes in the order they were made; a watcher
            // only hands the value to its stream's queue.
            for watcher in state.watchers.values { watcher(available) }
        }
    }

    /// Calls `watcher` with each change of the status until the returned function is called; returns the
    /// status now too.
    func watch(_ watcher: @escaping @Sendable (Bool) -> Void) -> (isAvailable: Bool, stop: @Sendable () -> Void) {
        let (key, isAvailable) = state.withLockedValue { state in
            state.nextWatcher += 1
            state.watchers[state.nextWatcher] = watcher
            return (state.nextWatcher, state.isAvailable)
        }
        return (isAvailable, { [state] in _ = state.withLockedValue { $0.watchers.removeValue(forKey: key) } })
    }
}
