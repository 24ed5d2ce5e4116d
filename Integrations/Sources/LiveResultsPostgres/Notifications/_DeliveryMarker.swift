import NIOConcurrencyHelpers

/// An action queued among a subscription's transactions: it runs once, when the transactions queued before it
/// have reached the subscriber, or when the subscription ends.
final class _DeliveryMarker: Sendable {
    private let action: NIOLockedValueBox<(@Sendable () -> Void)?>

    init(_ action: @escaping @Sendable () -> Void) { self.action = NIOLockedValueBox(action) }

    /// Runs the action, the first time only.
    func run() {
        let action = action.withLockedValue { action in
            defer { action = nil }
            return action
        }
        action?()
    }
}

/// Runs an action once a number of markers have run.
final class _DeliveryCountdown: Sendable {
    private let remaining: NIOLockedValueBox<Int>
    private let action: @Sendable () -> Void

    /// Runs `action` after `count` calls of ``tick()``; at once when `count` is 0.
    init(count: Int, then action: @escaping @Sendable () -> Void) {
        remaining = NIOLockedValueBox(count)
        self.action = action
        if count == 0 { action() }
    }

    func tick() {
        let done = remaining.withLockedValue { remaining -> Bool in
            remaining -= 1
            return remaining == 0
        }
        if done { action() }
    }
}

/// How a fetch's wait for its table's deliveries ended.
enum _DeliveryWait: Sendable {
    /// The subscriptions received every transaction up to the position.
    case delivered
    /// The feed stopped reading, or replaced its slot: nothing to wait for.
    case ended
    /// The table's query timeout passed first.
    case timedOut
    /// The fetch's task was cancelled.
    case cancelled
}

/// What a fetch does after its snapshot met the feed's subscriptions (``PostgresChangeFeed/meet(table:snapshot:slot:)``).
enum _FetchMeeting: Sendable {
    /// Every subscription of the table skips exactly what the snapshot sees.
    case exact
    /// Some met an earlier snapshot: the fetch waits until they received what its snapshot sees.
    case waitForDeliveries
    /// One met a snapshot that sees what this one does not: the fetch reads again, in a new snapshot.
    case readAgain
}
