/// Walking a trie in hash order: two tries of the same keys, or a trie and a list sorted by
/// ``_HashTrie/hashOrderKey(of:)``, can then be paired by merging, without a hash table.
extension _HashTrie {
    /// The key that sorts hashes in the order ``makeHashOrderIterator()`` visits them: the hash's 4-bit
    /// fragments, first level's most significant.
    @inlinable static func hashOrderKey(of hash: UInt64) -> UInt64 {
        assert(Node.fragmentBits == 4, "the order key reverses the nibbles of the hash")
        let bytes = hash.byteSwapped
        return (bytes & 0x0F0F_0F0F_0F0F_0F0F) << 4 | (bytes >> 4) & 0x0F0F_0F0F_0F0F_0F0F
    }

    /// The values in ascending ``hashOrderKey(of:)`` of the hashes of their keys (values whose whole
    /// hashes are equal in no particular order), walking the nodes depth first.
    ///
    /// The walk yields pointers to the values in their nodes, valid while this trie is alive: a merge
    /// of two walks compares values and keeps few, and copying each one out costs more than reading it.
    @inlinable func makeHashOrderIterator() -> HashOrderIterator {
        HashOrderIterator(root: root)
    }

    /// See ``makeHashOrderIterator()``: pulled one value at a time, so that two walks can be merged.
    @usableFromInline struct HashOrderIterator: IteratorProtocol {
        /// A node being walked: the fragments left to visit, and how many of its entries and children
        /// were visited.
        @usableFromInline struct Frame {
            // Held by `root`, through the frames below it.
            @usableFromInline unowned(unsafe) var node: Node
            @usableFromInline var remaining: UInt32
            @usableFromInline var entryIndex = 0
            @usableFromInline var childIndex = 0

            @inlinable init(_ node: Node) {
                self.node = node
                let maps = node.maps
                remaining = maps.isCollision ? 0 : maps.entryMap | maps.childMap
            }
        }

        @usableFromInline let root: Node
        @usableFromInline var stack: [Frame]

        @inlinable init(root: Node) {
            self.root = root
            stack = [Frame(root)]
        }

        @inlinable mutating func next() -> UnsafePointer<Value>? {
            while let top = stack.indices.last {
                // Held by `root`: reading it as a strong reference would retain and release it.
                unowned(unsafe) let node = stack[top].node
                let maps = node.maps
                if maps.isCollision {
                    // Below the last fragment: the entries, which share their whole hash, in node order.
                    let index = stack[top].entryIndex
                    guard index < maps.entryCount else {
                        stack.removeLast()
                        continue
                    }
                    stack[top].entryIndex += 1
                    return UnsafePointer(node.entries(childCount: 0) + index)
                }
                let remaining = stack[top].remaining
                guard remaining != 0 else {
                    stack.removeLast()
                    continue
                }
                stack[top].remaining = remaining & (remaining &- 1)
                // Entries and children each follow fragment order; the lowest fragment left is either.
                if maps.entryMap & remaining & (0 &- remaining) != 0 {
                    let index = stack[top].entryIndex
                    stack[top].entryIndex += 1
                    return UnsafePointer(node.entries(childCount: maps.childCount) + index)
                }
                unowned(unsafe) let child = node.children[stack[top].childIndex]
                stack[top].childIndex += 1
                stack.append(Frame(child))
            }
            return nil
        }
    }
}
