/// Node references laid out in memory, released without knowing the nodes' types.
@usableFromInline enum _NodeReferences {
    /// Releases the `count` references at `start`, `stride` bytes apart.
    ///
    /// A node's deinit is not specialized for its element type: there, deinitializing its references
    /// goes through the runtime's generic destruction, and even loading them costs generic calls. This
    /// function knows nothing of the element type, so it compiles to one plain release per reference.
    @usableFromInline static func release(_ start: UnsafeMutableRawPointer, count: Int, stride: Int) {
        for index in 0..<count {
            start.load(fromByteOffset: index * stride, as: Unmanaged<AnyObject>.self).release()
        }
    }

    /// Releases the references at `start` that `map` places (one per set bit, in bit order) except those
    /// whose bits are in `skipped`.
    @usableFromInline static func release(_ start: UnsafeMutableRawPointer, of map: UInt32, except skipped: UInt32) {
        // Visits only the references to release: usually one or two of a node's sixteen.
        var remaining = map & ~skipped
        while remaining != 0 {
            let bit = remaining & (0 &- remaining)
            let index = (map & (bit &- 1)).nonzeroBitCount
            start.load(fromByteOffset: index &* MemoryLayout<AnyObject>.stride, as: Unmanaged<AnyObject>.self).release()
            remaining &= remaining &- 1
        }
    }
}
