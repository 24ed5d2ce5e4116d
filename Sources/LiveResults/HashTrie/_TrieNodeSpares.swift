/// Trie nodes that a change let go of, kept for the copies it makes next.
///
/// With a snapshot taken after every change, a change first frees the nodes the previous change copied
/// from (the absorbs along the last path), then copies about as many nodes along its own path, most of
/// them of the same size (the upper levels hold sixteen children and no entries). Each kept node saves
/// an allocation and a free, with the object setup and teardown Swift adds to them.
///
/// It lives for one change, in memory the change allocates on the stack, and holds only nodes nothing
/// else references; what is left at the end is freed then (``releaseAll()``).
@usableFromInline struct _TrieNodeSpares<Value: _HashTrieValue> {
    @usableFromInline typealias Node = _TrieNode<Value>

    /// A kept node and the size it was allocated with, in units of its tail.
    @usableFromInline struct Spare {
        @usableFromInline var node: Node
        @usableFromInline var units: Int

        @inlinable init(node: Node, units: Int) {
            self.node = node
            self.units = units
        }
    }

    /// Room for the spares; the first `count` are initialized.
    @usableFromInline let room: UnsafeMutableBufferPointer<Spare>
    @usableFromInline var count = 0

    @inlinable init(room: UnsafeMutableBufferPointer<Spare>) {
        self.room = room
    }

    /// Spares that keep nothing: every node given to them is freed at once.
    @inlinable static var none: _TrieNodeSpares {
        _TrieNodeSpares(room: UnsafeMutableBufferPointer(start: nil, count: 0))
    }

    /// The most spares a change keeps: one per level a change visits, at a million entities and more.
    @inlinable static var capacity: Int { 8 }

    /// Runs `body` with spares kept in stack memory, and frees those left when it returns.
    @inlinable static func withSpares<Result>(_ body: (inout _TrieNodeSpares) -> Result) -> Result {
        withUnsafeTemporaryAllocation(of: Spare.self, capacity: capacity) { room in
            var spares = _TrieNodeSpares(room: room)
            defer { spares.releaseAll() }
            return body(&spares)
        }
    }

    @inlinable var hasRoom: Bool { count < room.count }

    /// Keeps `node`, which nothing else references and which holds nothing (all-zero maps).
    @inlinable mutating func keep(_ node: Node, units: Int) {
        assert(hasRoom && node.maps.bits == 0, "a spare is empty and there is room for it")
        (room.baseAddress! + count).initialize(to: Spare(node: node, units: units))
        count += 1
    }

    /// A kept node allocated with exactly `units` units, if there is one; it leaves the spares.
    @inlinable mutating func take(units: Int) -> Node? {
        for index in 0..<count where room[index].units == units {
            let spare = (room.baseAddress! + index).move()
            count -= 1
            if index < count { (room.baseAddress! + index).moveInitialize(from: room.baseAddress! + count, count: 1) }
            return spare.node
        }
        return nil
    }

    /// Frees the spares left.
    @inlinable mutating func releaseAll() {
        for index in 0..<count { (room.baseAddress! + index).deinitialize(count: 1) }
        count = 0
    }
}
