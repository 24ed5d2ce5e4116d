import Synchronization

/// Loads that bring memory into the cache ahead of its use, so that misses which would come one after
/// another overlap instead.
///
/// At a million entities the node a descent enters next is mostly out of the cache, and its search reads
/// the node's header, then one line after another of its binary search: five or six misses in a row, each
/// waiting for the one before. Loading one byte of every line the search may read, as soon as the
/// descent knows the node, puts all those misses in flight at once; the processor goes on with later
/// instructions while they are outstanding, and the search then finds its lines arriving or there.
///
/// Swift has no prefetch instruction, so these are ordinary loads. Their result decides a store that
/// practically never happens, so that the optimizer keeps them; it reads only initialized memory.
@usableFromInline enum _Prefetch {
    /// The bytes of a cache line.
    @inlinable static var lineSize: Int { 64 }

    /// Loads the first byte of every line that the `count` elements from `base` occupy (`count` may be
    /// zero), and returns them combined, for ``keep(_:)``. The elements must be initialized.
    @inlinable static func load<Element>(elementsFrom base: UnsafePointer<Element>, count: Int) -> UInt8 {
        let stride = MemoryLayout<Element>.stride
        let step = Swift.max(1, lineSize / Swift.max(1, stride))
        let bytes = UnsafeRawPointer(base)
        var loaded: UInt8 = 0
        var index = 0
        while index < count {
            loaded |= bytes.load(fromByteOffset: index &* stride, as: UInt8.self)
            index &+= step
        }
        return loaded
    }

    /// Loads the first byte of `value`, which must be initialized, for ``keep(_:)``.
    @inlinable static func load<Value>(_ value: UnsafePointer<Value>) -> UInt8 {
        UnsafeRawPointer(value).load(as: UInt8.self)
    }

    /// Where loaded bytes go: a relaxed atomic store, which the optimizer may not drop, made only when
    /// the bytes combine to one value out of 256 (an OR of bytes of ids, counts and addresses hardly ever
    /// does), so threads do not contend for it.
    @usableFromInline static let sink = Atomic<UInt8>(0)

    @inlinable static func keep(_ loaded: UInt8) {
        if loaded == 0x5A { sink.store(loaded, ordering: .relaxed) }
    }
}
