/// Finds the entities of a fetch result whose id an earlier entity already has.
///
/// A `Set` of a million ids costs a cache miss per insertion, since its table is larger than the
/// caches. Here the ids' hashes are first grouped by their top bits into blocks of about a thousand,
/// then each block is checked with a small table that stays in the first-level cache.
/// Ids are compared only where the hashes' low halves are equal.
@usableFromInline enum _DuplicateIDs {
    /// The indices of the entities whose id occurs earlier in `entities`, ascending.
    ///
    /// - Complexity: O(*n*) expected: one hash per id, and ids compared only when their hashes are equal.
    @inlinable static func laterOccurrences<Entity: Identifiable>(in entities: [Entity]) -> [Int] {
        let count = entities.count
        guard count > 1 else { return [] }
        precondition(count < Int(UInt32.max), "too many entities")
        // About 1024 to 2048 entries per block.
        let blockBits = Swift.max(0, Int.bitWidth - 1 - count.leadingZeroBitCount - 10)
        let blockShift = UInt64(64 - blockBits)
        var hashes = [UInt64](repeating: 0, count: count)
        var blockStarts = [Int](repeating: 0, count: (1 << blockBits) + 1)
        entities.withUnsafeBufferPointer { entities in
            hashes.withUnsafeMutableBufferPointer { hashes in
                for index in entities.indices {
                    let hash = UInt64(bitPattern: Int64(entities[index].id.hashValue))
                    hashes[index] = hash
                    blockStarts[blockBits == 0 ? 1 : Int(truncatingIfNeeded: hash >> blockShift) + 1] += 1
                }
            }
        }
        for block in 0..<(1 << blockBits) { blockStarts[block + 1] += blockStarts[block] }
        // Every block's entries, in input order.
        var blocked = [Entry](repeating: Entry(hash: 0, index: 0), count: count)
        var next = blockStarts
        for index in 0..<count {
            let hash = hashes[index]
            let block = blockBits == 0 ? 0 : Int(truncatingIfNeeded: hash >> blockShift)
            blocked[next[block]] = Entry(hash: UInt32(truncatingIfNeeded: hash), index: UInt32(index))
            next[block] += 1
        }
        var later: [Int] = []
        var table: [UInt32] = []
        entities.withUnsafeBufferPointer { entities in
            for block in 0..<(1 << blockBits) {
                let range = blockStarts[block]..<blockStarts[block + 1]
                guard range.count > 1 else { continue }
                var size = 4
                while size < 2 * range.count { size *= 2 }
                if table.count < size { table = [UInt32](repeating: 0, count: size) }
                let mask = size - 1
                // Slots hold 1 + an entry's offset in the block, or 0.
                for offset in 0..<range.count {
                    let entry = blocked[range.lowerBound + offset]
                    var slot = Int(truncatingIfNeeded: entry.hash) & mask
                    while true {
                        let occupant = table[slot]
                        if occupant == 0 {
                            table[slot] = UInt32(offset + 1)
                            break
                        }
                        let earlier = blocked[range.lowerBound + Int(occupant) - 1]
                        if earlier.hash == entry.hash
                            && entities[Int(earlier.index)].id == entities[Int(entry.index)].id
                        {
                            later.append(Int(entry.index))
                            break
                        }
                        slot = (slot + 1) & mask
                    }
                }
                for slot in 0..<size { table[slot] = 0 }
            }
        }
        later.sort()
        return later
    }

    /// `entities` without the later occurrences of repeated ids, and those occurrences' ids.
    ///
    /// - Complexity: O(*n*) expected; no copy when no id repeats.
    @inlinable static func firstOccurrences<Entity: Identifiable>(in entities: [Entity]) -> (
        entities: [Entity], repeatedIDs: [Entity.ID]
    ) {
        let later = laterOccurrences(in: entities)
        guard !later.isEmpty else { return (entities, []) }
        var kept: [Entity] = []
        kept.reserveCapacity(entities.count - later.count)
        var nextLater = 0
        for (offset, entity) in entities.enumerated() {
            if nextLater < later.count && later[nextLater] == offset {
                nextLater += 1
            } else {
                kept.append(entity)
            }
        }
        return (kept, later.map { entities[$0].id })
    }

    /// The low half of an id's hash and the index of its entity: eight bytes. The block an entry is in
    /// stands for the top bits of the hash; ids are compared where the low halves are equal.
    @usableFromInline struct Entry {
        @usableFromInline var hash: UInt32
        @usableFromInline var index: UInt32

        @usableFromInline
        init(hash: UInt32, index: UInt32) {
            self.hash = hash
            self.index = index
        }
    }
}
