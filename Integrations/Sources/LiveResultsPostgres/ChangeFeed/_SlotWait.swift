/// How a fetch's wait for its feed's slot ended (see ``PostgresChangeFeed/slotForFetch(of:timeout:)``).
enum _SlotWait: Sendable {
    /// The fetch goes on, meeting this slot (`nil`: none, the feed does not read).
    case ready(Int?)
    /// The bound passed first.
    case timedOut(after: Duration)
    /// The fetch's task was cancelled.
    case cancelled
}
