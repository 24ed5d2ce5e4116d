/// A least-significant-digit radix sort of ``_SortEntry`` values by section, then key.
///
/// The sort is stable, so entries with equal sections and keys keep their input order. Only the bits
/// that differ between entries are sorted: keys of a million scores below 10⁶ in 20 sections take 25
/// bits, three passes of eight, where a comparison sort takes twenty comparisons per entry.
@usableFromInline enum _RadixSort {
    @usableFromInline static let digitBits = 8

    /// Sorts `entries` by `section`, then `key`, keeping the input order of equal entries.
    ///
    /// - Parameter sectionCount: More than every entry's section.
    /// - Complexity: O(*n* + *s*) for *s* sections, times the number of 8-bit digits that differ
    ///   between keys (at most 8), plus one pass for the sections.
    @usableFromInline static func sort(_ entries: inout [_SortEntry], sectionCount: Int) {
        guard entries.count > 1 else { return }
        var common = UInt64.max
        var any: UInt64 = 0
        for entry in entries {
            common &= entry.key
            any |= entry.key
        }
        // Bits that differ between keys lie in `varying`; the others are the bits of `common`.
        let varying = common ^ any
        let low = varying == 0 ? 0 : varying.trailingZeroBitCount
        let keyBits = varying == 0 ? 0 : 64 - varying.leadingZeroBitCount - low
        let sectionBits = sectionCount > 1 ? Int.bitWidth - (sectionCount - 1).leadingZeroBitCount : 0
        if keyBits + sectionBits <= 64 {
            // One packed key: the section above the varying bits of the sort key.
            let keyMask: UInt64 = keyBits == 64 ? .max : (1 << UInt64(keyBits)) &- 1
            for index in entries.indices {
                let key = entries[index].key
                entries[index].key = UInt64(entries[index].section) << UInt64(keyBits) | (key >> UInt64(low)) & keyMask
            }
            sortByKey(&entries, bits: keyBits + sectionBits)
            for index in entries.indices {
                entries[index].key = common | (entries[index].key & keyMask) << UInt64(low)
            }
        } else {
            sortByKey(&entries, bits: 64)
            sortBySection(&entries, sectionCount: sectionCount)
        }
    }

    /// Sorts stably by the low `bits` bits of the keys, a digit at a time, skipping digits all entries share.
    @usableFromInline static func sortByKey(_ entries: inout [_SortEntry], bits: Int) {
        let radix = 1 << digitBits
        let digits = (bits + digitBits - 1) / digitBits
        guard digits > 0 else { return }
        let count = entries.count
        var counts = [Int](repeating: 0, count: digits * radix)
        counts.withUnsafeMutableBufferPointer { counts in
            for entry in entries {
                var key = entry.key
                for digit in 0..<digits {
                    counts[digit &* radix &+ Int(truncatingIfNeeded: key & UInt64(radix &- 1))] &+= 1
                    key >>= UInt64(digitBits)
                }
            }
        }
        var scratch = [_SortEntry]()
        for digit in 0..<digits {
            let slice = digit * radix..<(digit + 1) * radix
            guard !counts[slice].contains(count) else { continue }
            if scratch.isEmpty { scratch = uninitialized(count: count) }
            let shift = UInt64(digit * digitBits)
            counts.withUnsafeMutableBufferPointer { counts in
                let starts = UnsafeMutableBufferPointer(rebasing: counts[slice])
                scatter(&entries, through: &scratch, starts: starts) {
                    Int(truncatingIfNeeded: ($0.key >> shift) & UInt64(radix &- 1))
                }
            }
        }
    }

    /// Sorts stably by section: a counting sort.
    @usableFromInline static func sortBySection(_ entries: inout [_SortEntry], sectionCount: Int) {
        guard sectionCount > 1 else { return }
        var starts = [Int](repeating: 0, count: sectionCount)
        for entry in entries { starts[Int(entry.section)] += 1 }
        guard !starts.contains(entries.count) else { return }
        var scratch = uninitialized(count: entries.count)
        starts.withUnsafeMutableBufferPointer { starts in
            scatter(&entries, through: &scratch, starts: starts) { Int(truncatingIfNeeded: $0.section) }
        }
    }

    /// A buffer to scatter into: every element is written before it is read.
    @usableFromInline static func uninitialized(count: Int) -> [_SortEntry] {
        [_SortEntry](unsafeUninitializedCapacity: count) { _, initialized in initialized = count }
    }

    /// Moves every entry to `starts[bucket(entry)]`, in order, and leaves the result in `entries`;
    /// `starts` holds the counts of the buckets on entry.
    @inlinable static func scatter(
        _ entries: inout [_SortEntry],
        through scratch: inout [_SortEntry],
        starts: UnsafeMutableBufferPointer<Int>,
        bucket: (_SortEntry) -> Int
    ) {
        var total = 0
        for index in starts.indices {
            let count = starts[index]
            starts[index] = total
            total += count
        }
        entries.withUnsafeBufferPointer { source in
            scratch.withUnsafeMutableBufferPointer { destination in
                for entry in source {
                    let bucket = bucket(entry)
                    destination[starts[bucket]] = entry
                    starts[bucket] &+= 1
                }
            }
        }
        swap(&entries, &scratch)
    }
}
