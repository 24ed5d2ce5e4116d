/// The subscribers of a broadcast source, by subscription id: the state an ``EventBus`` or a
/// ``MemoryPressureSource`` keeps behind its lock.
struct _Subscribers<Subscriber: Sendable>: Sendable {
    private var byID: [UInt64: Subscriber] = [:]
    private var nextID: UInt64 = 0

    /// Every subscriber, to call outside the lock.
    var all: [Subscriber] { Array(byID.values) }

    var count: Int { byID.count }
    var isEmpty: Bool { byID.isEmpty }

    /// Adds a subscriber and returns the id that removes it.
    mutating func add(_ subscriber: Subscriber) -> UInt64 {
        defer { nextID += 1 }
        byID[nextID] = subscriber
        return nextID
    }

    /// Removes the subscriber with this id, if it is still there.
    mutating func remove(_ id: UInt64) {
        byID[id] = nil
    }
}
