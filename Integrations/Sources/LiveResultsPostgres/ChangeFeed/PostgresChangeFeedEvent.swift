/// What a ``PostgresChangeFeed`` does, for logs and tests.
public enum PostgresChangeFeedEvent: Sendable {
    /// The feed reads `slot`: it created it (`resumed` false), or found it and resumes from its confirmed
    /// position (a ``PostgresChangeFeed/Slot/named(_:)`` slot of an earlier run, or after a lost connection).
    case reading(slot: String, resumed: Bool)
    /// A connection or a read failed; the feed tries again after `retryAfter`.
    case connectionFailed(any Error, failures: Int, retryAfter: Duration)
    /// The slot disappeared (dropped) or PostgreSQL invalidated it (`max_slot_wal_keep_size` exceeded): the
    /// feed created it again and sent `EntityEvent.invalidated` to every subscriber, which refetch.
    case slotReplaced(slot: String, reason: String)
    /// The feed dropped `slot`, a ``PostgresChangeFeed/Slot/temporary`` slot of another feed that is gone (a
    /// process that crashed or was killed): nobody had read it or held its lock for `unownedFor`. Worth a log line:
    /// until then the slot kept the write-ahead log from being recycled.
    case abandonedSlotDropped(slot: String, unownedFor: Duration)
    /// The feed dropped its own ``PostgresChangeFeed/Slot/temporary`` slot, `slot`, as it stopped reading (its
    /// last subscription ended, or ``PostgresChangeFeed/shutdown(timeout:)``).
    case slotDropped(slot: String)
    /// The feed stopped reading without dropping its own temporary slot, `slot`, for `reason` (the database was out
    /// of reach, or a shutdown's timeout passed first). Worth a warning: the slot holds the write-ahead log until
    /// another running feed of the database drops it (see ``PostgresChangeFeed/Slot/temporary``).
    case slotLeft(slot: String, reason: String)
    /// The feed stopped reading: its last subscription ended, or it was shut down. A temporary slot was dropped or
    /// left before (``slotDropped(slot:)``, ``slotLeft(slot:reason:)``).
    case stopped
}
