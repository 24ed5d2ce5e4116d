/// The subscribers of a broadcast source, by subscription id: the state an ``EventBus`` or a
/// ``MemoryPressureSource`` keeps behind its lock.
///
/// The subscribers are kept as the list every delivery reads, in the order they subscribed: a delivery takes the
/// list (a retain) rather than building one, which for a bus of one subscriber cost more than the subscriber's own
/// work on an event. Subscribing and cancelling, which are rare, pay for it.
@usableFromInline struct _Subscribers<Subscriber: Sendable>: Sendable {
    /// Every subscriber, in the order they subscribed, to call outside the lock.
    @usableFromInline var all: [Subscriber] = []
    /// The subscription id of each of ``all``.
    @usableFromInline var ids: [UInt64] = []
    @usableFromInline var nextID: UInt64 = 0

    @inlinable var count: Int { all.count }
    @inlinable var isEmpty: Bool { all.isEmpty }

    /// Adds a subscriber and returns the id that removes it.
    @inlinable mutating func add(_ subscriber: Subscriber) -> UInt64 {
        defer { nextID += 1 }
        all.append(subscriber)
        ids.append(nextID)
        return nextID
    }

    /// Removes the subscriber with this id, if it is still there.
    @inlinable mutating func remove(_ id: UInt64) {
        guard let index = ids.firstIndex(of: id) else { return }
        ids.remove(at: index)
        all.remove(at: index)
    }

    @inlinable init() {}
}
