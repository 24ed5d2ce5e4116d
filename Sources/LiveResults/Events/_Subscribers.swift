/// The subscribers of a broadcast source, by subscription id: the state an ``EventBus`` or a
/// ``MemoryPressureSource`` keeps behind its lock.
@usableFromInline struct _Subscribers<Subscriber: Sendable>: Sendable {
    @usableFromInline var byID: [UInt64: Subscriber] = [:]
    @usableFromInline var nextID: UInt64 = 0

    /// Every subscriber, to call outside the lock.
    @inlinable var all: [Subscriber] { Array(byID.values) }

    @inlinable var count: Int { byID.count }
    @inlinable var isEmpty: Bool { byID.isEmpty }

    /// Adds a subscriber and returns the id that removes it.
    @inlinable mutating func add(_ subscriber: Subscriber) -> UInt64 {
        defer { nextID += 1 }
        byID[nextID] = subscriber
        return nextID
    }

    /// Removes the subscriber with this id, if it is still there.
    @inlinable mutating func remove(_ id: UInt64) {
        byID[id] = nil
    }

    @usableFromInline
    init(byID: [UInt64: Subscriber] = [:], nextID: UInt64 = 0) {
        self.byID = byID
        self.nextID = nextID
    }
}
